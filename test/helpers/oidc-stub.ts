/**
 * A small OpenID provider for the refusal tests: it answers discovery, authorization (straight back
 * to the redirect URI with a code), token, JWKS and userinfo, and issues the ID token a test asks
 * for (signed by another key, expired, for another audience). The browser test uses the real
 * `oidc-provider`; this one lets each bad token be made on purpose.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export interface StubAccount {
  sub: string;
  email: string;
  /** Absent: the provider says nothing (Microsoft Entra ID's work accounts). */
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

/** What the next ID token gets wrong. */
export interface TokenTweaks {
  otherKey?: boolean;
  expired?: boolean;
  audience?: string;
  nonce?: string;
  /** More claims in the ID token (`xms_edov`). */
  claims?: Record<string, unknown>;
}

interface Grant {
  account: StubAccount;
  challenge: string;
  nonce: string;
  redirectUri: string;
  used: boolean;
}

export interface OidcStub {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorization signs in, and what its ID token gets wrong. */
  next(account: StubAccount, tweaks?: TokenTweaks): void;
  /** Stops answering (connections refused) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startOidcStub(): Promise<OidcStub> {
  const good = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(good.publicKey)), kid: 'good', alg: 'RS256', use: 'sig' };
  const clientId = 'bellwether-test';
  const clientSecret = randomBytes(16).toString('hex');
  const grants = new Map<string, Grant & { tweaks: TokenTweaks }>();
  const tokens = new Map<string, StubAccount>();
  let nextAccount: StubAccount | null = null;
  let nextTweaks: TokenTweaks = {};
  let issuer = '';
  let port = 0;

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  async function idToken(grant: Grant, tweaks: TokenTweaks): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey = tweaks.otherKey ? other.privateKey : good.privateKey;
    return new SignJWT({ ...tweaks.claims, nonce: tweaks.nonce ?? grant.nonce })
      .setProtectedHeader({ alg: 'RS256', kid: 'good' })
      .setIssuer(issuer)
      .setSubject(grant.account.sub)
      .setAudience(tweaks.audience ?? clientId)
      .setIssuedAt(tweaks.expired ? now - 7200 : now)
      .setExpirationTime(tweaks.expired ? now - 3600 : now + 300)
      .sign(key);
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const p = url.searchParams;
      if (!nextAccount || p.get('client_id') !== clientId || p.get('code_challenge_method') !== 'S256' || !p.get('nonce')) {
        return json(res, 400, { error: 'invalid_request' });
      }
      const code = randomBytes(16).toString('hex');
      grants.set(code, {
        account: nextAccount,
        challenge: p.get('code_challenge')!,
        nonce: p.get('nonce')!,
        redirectUri: p.get('redirect_uri')!,
        used: false,
        tweaks: nextTweaks,
      });
      const back = new URL(p.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', p.get('state')!);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
      const posted = form.get('client_id') === clientId && form.get('client_secret') === clientSecret;
      if (req.headers.authorization !== `Basic ${basic}` && !posted) return json(res, 401, { error: 'invalid_client' });
      const grant = grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri') || s256(form.get('code_verifier') ?? '') !== grant.challenge) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'grant request is invalid' });
      }
      grant.used = true;
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.account);
      return json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: await idToken(grant, grant.tweaks) });
    }
    if (url.pathname === '/userinfo') {
      const account = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!account) return json(res, 401, { error: 'invalid_token' });
      return json(res, 200, account);
    }
    json(res, 404, { error: 'not_found' });
  };

  let server = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  const listen = (wanted: number) =>
    new Promise<void>((resolve) => {
      server.listen(wanted, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  issuer = `http://127.0.0.1:${port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    next(account, tweaks = {}) {
      nextAccount = account;
      nextTweaks = tweaks;
    },
    down: stop,
    async up() {
      server = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
      await listen(port);
    },
    close: stop,
  };
}
