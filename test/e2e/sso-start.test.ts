// `npm start` with single sign-on: the redirect URI to register is printed with the URL; a provider
// whose discovery document cannot be read stops the start with a message naming the setting; a
// half-given configuration stops it before anything starts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startOidcStub, type OidcStub } from '../helpers/oidc-stub.ts';
import { startService, withTimeout, type Service } from './support/service.ts';

const TEST_MS = 200_000;
let db: TestDatabase;
let stub: OidcStub;
const started: Service[] = [];

before(async () => {
  db = await createTestDatabase();
  stub = await startOidcStub();
});
after(async () => {
  for (const service of started) await service.stop();
  await stub?.close();
  await db?.drop();
});

const env = (extra: Record<string, string>) => ({
  DATABASE_URL: db.url,
  WORKERS: '1',
  SITE_URL: 'https://flags.example.com',
  OIDC_CLIENT_ID: stub.clientId,
  OIDC_CLIENT_SECRET: stub.clientSecret,
  OIDC_ALLOWED_DOMAINS: 'example.com',
  ...extra,
});

test('the start prints the redirect URI, and the sign-in page offers single sign-on', { timeout: TEST_MS }, async () => {
  const service = await startService(env({ OIDC_ISSUER_URL: stub.issuer }));
  started.push(service);
  assert.match(service.output(), /register this redirect URI with the provider: https:\/\/flags\.example\.com\/api\/auth\/oidc\/callback/);
  const methods = await fetch(`${service.url}/api/login/methods/`);
  assert.equal((await methods.json()).sso.button_text, 'Sign in with SSO');
  const begin = await fetch(`${service.url}/api/auth/oidc/login`, { redirect: 'manual' });
  assert.equal(begin.status, 302);
  assert.ok(begin.headers.get('location')?.startsWith(`${stub.issuer}/authorize?`));
  assert.equal(service.output().includes(stub.clientSecret), false, 'the client secret is never printed or logged');
});

test('a provider that cannot be read stops the start with a message naming OIDC_ISSUER_URL', { timeout: TEST_MS }, async () => {
  await assert.rejects(startService(env({ OIDC_ISSUER_URL: 'http://127.0.0.1:9' })), (error: Error) => {
    assert.match(error.message, /Bellwether could not start: single sign-on: could not read the OpenID Connect discovery document of OIDC_ISSUER_URL http:\/\/127\.0\.0\.1:9/);
    return true;
  });
});

test('a half-given configuration stops the start saying what is missing', { timeout: TEST_MS }, async () => {
  const failed = startService(env({ OIDC_ISSUER_URL: stub.issuer, OIDC_ALLOWED_DOMAINS: '' }));
  await withTimeout(
    assert.rejects(failed, /OIDC_ALLOWED_DOMAINS is required with OIDC_ISSUER_URL/),
    TEST_MS - 10_000,
    () => 'the start did not fail',
  );
});
