// Single sign-on, "forgot password" and reset links in headless Chromium, against a real OpenID
// provider (`oidc-provider`, on loopback) and a real SMTP server (smtp-server): the person clicks
// "Sign in with SSO", passes the provider's login and consent and lands in the console; a domain
// that is not allowed, an unverified address, a replayed callback or code and the provider gone all
// come back to the sign-in page with the reason, nothing created; a reset mail's link sets a
// password; an admin makes a reset link in Settings → Members, which shows how each person signs in.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import Provider from 'oidc-provider';
import { parseOidcSettings } from '../../src/accounts/oidc/settings.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startMailbox, type Mailbox } from '../helpers/mailbox.ts';
import { givePassword, GOOD_PASSWORD, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';
import { freePort } from './support/service.ts';

const TEST_MS = 120_000;
const CLIENT = { id: 'bellwether', secret: 'a-test-secret-of-some-length-0123456789' };
const NEW_PASSWORD = 'quiet lighthouse 1987 tide';

let t: TestApp;
let origin: string;
let issuer: string;
let providerPort: number;
let provider: Provider;
let providerServer: Server;
let onRedirectBack: ((callback: URL) => URL | void) | null = null;
let mailbox: Mailbox;
let browser: Browser;
const opened: ConsolePage[] = [];

/** The provider's people: any login name, `<name>@example.com` verified, but for two. */
function claimsOf(id: string) {
  if (id === 'outsider') return { email: 'outsider@elsewhere.test', email_verified: true };
  if (id === 'unverified') return { email: 'unverified@example.com', email_verified: false };
  return { email: `${id}@example.com`, email_verified: true, given_name: id[0].toUpperCase() + id.slice(1), family_name: 'Tester' };
}

before(async () => {
  const appPort = await freePort();
  providerPort = await freePort();
  origin = `http://127.0.0.1:${appPort}`;
  issuer = `http://127.0.0.1:${providerPort}`;
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${origin}/api/auth/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    cookies: { keys: ['a-cookie-key-for-tests'] },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...claimsOf(id) }) }),
  });
  // The provider's redirect back to the console, as the tests need it: with another code, or after
  // the provider stopped answering.
  provider.use(async (ctx, next) => {
    await next();
    const location = String(ctx.response.get('location') ?? '');
    if (onRedirectBack && location.startsWith(`${origin}/api/auth/oidc/callback`)) {
      const changed = onRedirectBack(new URL(location));
      if (changed) ctx.response.set('location', changed.toString());
    }
  });
  providerServer = provider.listen(providerPort, '127.0.0.1');
  mailbox = await startMailbox();
  t = await startTestApp({
    siteUrl: origin,
    oidc: parseOidcSettings({ OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_ALLOWED_DOMAINS: 'example.com' }),
    mail: { smtpUrl: mailbox.smtpUrl, from: 'Bellwether <bellwether@example.com>' },
  });
  await t.app.listen({ port: appPort, host: '127.0.0.1' });
  await givePassword(t);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
  providerServer?.closeAllConnections();
  await new Promise((resolve) => providerServer?.close(resolve));
  await mailbox?.close();
});

async function fresh(): Promise<ConsolePage> {
  const page = await openConsole(browser, origin, undefined, [issuer]);
  opened.push(page);
  return page;
}

/** From the console's sign-in page through the provider's login and consent pages. */
async function throughProvider(console: ConsolePage, login: string) {
  const { page } = console;
  await page.goto('/');
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.waitForURL((url) => url.origin === issuer);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('the sign-in page offers single sign-on and "Forgot password?"', { timeout: TEST_MS }, async () => {
  const console = await fresh();
  await step(console, 'the sign-in page', async () => {
    await console.page.goto('/');
    await console.page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await console.page.getByRole('link', { name: 'Forgot password?' }).waitFor();
  });
  await atBothSizes(console, 'sign-in-sso', (page) => page.getByRole('link', { name: 'Sign in with SSO' }).waitFor());
});

test('Chromium signs in with SSO through the provider and lands in the console, as a new member', { timeout: TEST_MS }, async () => {
  const console = await fresh();
  await step(console, 'signing in through the provider', async () => {
    await throughProvider(console, 'ada');
    await console.page.getByRole('heading', { name: 'Get started', exact: true }).waitFor(); // a new environment opens on its checklist
  });
  assert.equal(new URL(console.page.url()).origin, origin);
  const cookies = await console.context.cookies(origin);
  assert.ok(cookies.some((c) => c.name === 'bellwether_session' && c.httpOnly));
  const { rows } = await t.db.pool.query(
    `SELECT m.level, i.issuer FROM users u JOIN organization_memberships m ON m.user_id = u.id JOIN user_identities i ON i.user_id = u.id
      WHERE u.email = 'ada@example.com'`,
  );
  assert.deepEqual(rows, [{ level: 'member', issuer }]);
  // The provider's own pages ask for a web font; the console asks for nothing outside.
  assert.deepEqual(console.outside.filter((url) => !url.startsWith('https://fonts.googleapis.com/')), []);
});

test('a domain that is not allowed, or an unverified e-mail, comes back to the sign-in page with the reason, nobody created', { timeout: TEST_MS }, async () => {
  const before = (await t.db.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n;
  const console = await fresh();
  await step(console, 'the refusal', async () => {
    await throughProvider(console, 'outsider');
    await console.page.getByText('Accounts of your e-mail domain cannot sign in here.').waitFor();
    await console.page.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor();
  });
  await atBothSizes(console, 'sign-in-sso-refused', (page) => page.getByText('Accounts of your e-mail domain cannot sign in here.').waitFor());
  const second = await fresh();
  await step(second, 'the unverified refusal', async () => {
    await throughProvider(second, 'unverified');
    await second.page.getByText('Your e-mail address is not verified with the sign-in provider.').waitFor();
  });
  assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n, before);
});

test('a replayed callback, the same callback in another browser, and a replayed code are refused; nothing created', { timeout: TEST_MS }, async () => {
  const first = await fresh();
  let firstCallback = '';
  first.page.on('request', (request) => {
    if (request.url().includes('/api/auth/oidc/callback')) firstCallback = request.url();
  });
  await step(first, 'the first sign-in', async () => {
    await throughProvider(first, 'grace');
    await first.page.getByRole('heading', { name: 'Get started', exact: true }).waitFor(); // a new environment opens on its checklist
  });
  assert.ok(firstCallback.includes('code='), firstCallback);
  const counts = async () =>
    (await t.db.pool.query('SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM sessions) AS sessions')).rows[0];
  const before = await counts();

  const elsewhere = await fresh();
  await step(elsewhere, 'the used callback in another browser', async () => {
    await elsewhere.page.goto(firstCallback);
    await elsewhere.page.getByText('That sign-in expired or was already used. Start again.').waitFor();
  });

  const replaying = await fresh();
  const oldCode = new URL(firstCallback).searchParams.get('code')!;
  onRedirectBack = (callback) => {
    callback.searchParams.set('code', oldCode);
    return callback;
  };
  try {
    await step(replaying, 'a fresh sign-in carrying the used code', async () => {
      await throughProvider(replaying, 'grace');
      await replaying.page.getByText('The sign-in provider refused this sign-in. Start again.').waitFor();
    });
  } finally {
    onRedirectBack = null;
  }
  assert.deepEqual(await counts(), before);
});

test('the provider down when the browser comes back: the sign-in page says so, never a 500', { timeout: TEST_MS }, async () => {
  const console = await fresh();
  onRedirectBack = () => {
    // No new connections from here on; the service's idle keep-alive one is closed too.
    providerServer.close();
    providerServer.closeIdleConnections();
  };
  try {
    await step(console, 'the callback with the provider gone', async () => {
      await throughProvider(console, 'late');
      await console.page.getByText('The sign-in provider cannot be reached right now. Try again in a few minutes.').waitFor();
    });
  } finally {
    onRedirectBack = null;
    providerServer.closeAllConnections();
    providerServer = provider.listen(providerPort, '127.0.0.1');
  }
  const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'late@example.com'`);
  assert.equal(rows[0].n, 0);
});

test('"Forgot password?" mails a link; the link sets a new password and signs the person in', { timeout: TEST_MS }, async () => {
  const { page, ...rest } = await fresh();
  const console = { page, ...rest };
  const email = 'lin@example.com';
  const { userId } = await personWithPassword(t, (await t.db.pool.query('SELECT organization_id::text AS id FROM projects LIMIT 1')).rows[0].id, 'member', email);
  await t.db.pool.query('UPDATE users SET current_project_id = $2 WHERE id = $1', [userId, t.projectId]);
  await step(console, 'asking for the link', async () => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
  });
  await atBothSizes(console, 'forgot-password', (p) => p.getByRole('button', { name: 'Send reset link' }).waitFor());
  await step(console, 'sending', async () => {
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  });
  const mail = await mailbox.next(email);
  const link = /http\S+\/reset#token=\S+/.exec(mail.text ?? '')?.[0];
  assert.ok(link?.startsWith(`${origin}/reset#token=`), mail.text);
  await step(console, 'setting the password', async () => {
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
  });
  await atBothSizes(console, 'reset-password', (p) => p.getByRole('button', { name: 'Set password and sign in' }).waitFor());
  await step(console, 'the new password signs in', async () => {
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Get started', exact: true }).waitFor(); // a new environment opens on its checklist
  });
});

test('Settings → Members shows how each person signs in, and an admin makes a reset link there', { timeout: TEST_MS }, async () => {
  const console = await fresh();
  const { page } = console;
  await signInOnPage(console, OWNER_EMAIL, GOOD_PASSWORD);
  await step(console, 'the members page', async () => {
    await page.goto('/settings/members');
    const ada = page.getByRole('row', { name: /ada@example\.com/ });
    await ada.getByRole('cell', { name: 'SSO', exact: true }).waitFor();
    await page.getByRole('row', { name: /lin@example\.com/ }).getByRole('cell', { name: 'Password', exact: true }).waitFor();
  });
  await atBothSizes(console, 'settings-members-sign-in', (p) => p.getByRole('row', { name: /ada@example\.com/ }).waitFor());
  let link = '';
  await step(console, 'making a reset link', async () => {
    await page.getByRole('row', { name: /lin@example\.com/ }).getByRole('button', { name: 'Make reset link' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    link = await dialog.getByLabel('Reset link').inputValue();
  });
  assert.match(link, new RegExp(`^${origin}/reset#token=`));
  await atBothSizes(console, 'settings-members-reset-link', (p) => p.getByRole('dialog').getByLabel('Reset link').waitFor());
});
