// "Forgot password?" against a real SMTP server started here: the mail arrives, its link sets a new
// password once, ends every session of the person and signs the browser in; the answer is the same
// for an unknown address; requests are throttled; an admin makes a link without e-mail; invites
// are mailed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startMailbox, type Mailbox } from '../helpers/mailbox.ts';
import { cookie, givePassword, GOOD_PASSWORD, login, OWNER_EMAIL, personWithPassword, sessionOf, signIn } from '../helpers/session.ts';

const SITE = 'http://bellwether.test';
const NEW_PASSWORD = 'quiet lighthouse 1987 tide';
let mailbox: Mailbox;
let t: TestApp;
let bare: TestApp;
let organizationId: string;

before(async () => {
  mailbox = await startMailbox();
  t = await startTestApp({
    siteUrl: SITE,
    mail: { smtpUrl: mailbox.smtpUrl, from: 'Bellwether <bellwether@example.com>' },
    loginThrottle: { windowMs: 60_000, accountLimit: 3, addressLimit: 1000 },
  });
  bare = await startTestApp({ siteUrl: SITE });
  await givePassword(t);
  await givePassword(bare);
  const { rows } = await t.db.pool.query<{ id: string }>('SELECT organization_id::text AS id FROM projects WHERE id = $1', [t.projectId]);
  organizationId = rows[0].id;
});

after(async () => {
  await t?.close();
  await bare?.close();
  await mailbox?.close();
});

const forgot = (app: TestApp, email: string, address = '10.0.0.1') =>
  app.request({ method: 'POST', url: '/api/reset/', payload: { email }, key: null, remoteAddress: address });
const complete = (app: TestApp, token: string, password: string) =>
  app.request({ method: 'POST', url: '/api/reset/complete/', payload: { token, password }, key: null });

function tokenIn(text: string): string {
  const match = /\/reset#token=([A-Za-z0-9_-]+)/.exec(text);
  assert.ok(match, `a reset link in: ${text}`);
  return match[1];
}

async function resetTokens(email: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM password_reset_tokens r JOIN users u ON u.id = r.user_id WHERE u.email = $1',
    [email],
  );
  return rows[0].n;
}

test('a reset mail arrives, its link sets the password, ends every session and signs this browser in', async () => {
  const { email } = await personWithPassword(t, organizationId, 'member', 'lin@example.com');
  const other = await signIn(t, email);
  const response = await forgot(t, 'LIN@example.com');
  assert.equal(response.statusCode, 204, response.body);
  const mail = await mailbox.next(email);
  assert.equal(mail.subject, 'Reset your Bellwether password');
  assert.equal(mail.from?.value[0].address, 'bellwether@example.com');
  assert.ok(mail.text?.includes(`${SITE}/reset#token=`), mail.text);
  const token = tokenIn(mail.text!);
  const { rows } = await t.db.pool.query('SELECT token_hash FROM password_reset_tokens');
  assert.ok(rows.every((row) => row.token_hash !== token), 'only the hash is stored');

  const weak = await complete(t, token, 'password123');
  assert.equal(weak.statusCode, 400);
  assert.equal(weak.json().code, 'password_too_weak');

  const done = await complete(t, token, NEW_PASSWORD);
  assert.equal(done.statusCode, 200, done.body);
  assert.ok(cookie(done, 'bellwether_session'), 'signed in');
  assert.equal((await other.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 401, 'the other session ended');
  assert.equal((await login(t, email, GOOD_PASSWORD)).statusCode, 400, 'the old password no longer works');
  assert.equal((await login(t, email, NEW_PASSWORD)).statusCode, 200);

  const again = await complete(t, token, 'another quiet lighthouse 1988');
  assert.equal(again.statusCode, 400);
  assert.equal(again.json().code, 'invalid_token', 'single use');
});

test('an unknown address gets the same answer, and no mail is sent', async () => {
  const before = mailbox.received.length;
  const response = await forgot(t, 'nobody@example.com');
  assert.equal(response.statusCode, 204);
  assert.equal(response.body, '');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(mailbox.received.length, before);
});

test('a link expires after an hour', async () => {
  const { email } = await personWithPassword(t, organizationId, 'member', 'old@example.com');
  assert.equal((await forgot(t, email)).statusCode, 204);
  const token = tokenIn((await mailbox.next(email)).text!);
  const ttl = await t.db.pool.query(`SELECT extract(epoch FROM expires_at - created_at)::int AS seconds FROM password_reset_tokens`);
  assert.deepEqual(ttl.rows, [{ seconds: 3600 }]);
  await t.db.pool.query(`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second'`);
  const response = await complete(t, token, NEW_PASSWORD);
  assert.equal(response.statusCode, 400);
  assert.equal(response.json().code, 'invalid_token');
});

test('requests are throttled per account like sign-in (429 with Retry-After), known and unknown addresses alike, without locking the password out', async () => {
  const { email } = await personWithPassword(t, organizationId, 'member', 'busy@example.com');
  for (const address of [email, 'ghost@example.com']) {
    for (let i = 0; i < 3; i++) assert.equal((await forgot(t, address, `10.0.1.${i}`)).statusCode, 204);
    const throttled = await forgot(t, address, '10.0.1.9');
    assert.equal(throttled.statusCode, 429, throttled.body);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
  }
  assert.equal((await login(t, email, GOOD_PASSWORD)).statusCode, 200, 'sign-in is not locked by reset requests');
});

test('without SMTP, "forgot password" says to ask an admin, whatever the address', async () => {
  for (const email of [OWNER_EMAIL, 'nobody@example.com']) {
    const response = await forgot(bare, email);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().code, 'email_not_configured');
  }
  const methods = await bare.request({ method: 'GET', url: '/api/login/methods/', key: null });
  assert.deepEqual(methods.json(), { sso: null, password_reset_by_email: false });
});

test('an admin makes a reset link for a member to hand over; a member cannot; nobody above oneself', async () => {
  const { rows } = await bare.db.pool.query<{ id: string }>('SELECT organization_id::text AS id FROM projects WHERE id = $1', [bare.projectId]);
  const org = rows[0].id;
  const member = await personWithPassword(bare, org, 'member', 'handed@example.com');
  const admin = await personWithPassword(bare, org, 'admin', 'helper@example.com');
  const uuidOf = async (userId: number) => (await bare.db.pool.query('SELECT uuid FROM users WHERE id = $1', [userId])).rows[0].uuid as string;
  const ownerUuid = (await bare.db.pool.query(`SELECT uuid FROM users WHERE email = $1`, [OWNER_EMAIL])).rows[0].uuid as string;
  const adminSession = await signIn(bare, admin.email);
  const url = (uuid: string) => `/api/organizations/${org}/members/${uuid}/password_reset_link/`;

  const made = await adminSession.request({ method: 'POST', url: url(await uuidOf(member.userId)) });
  assert.equal(made.statusCode, 201, made.body);
  const link = made.json().url as string;
  assert.match(link, new RegExp(`^${SITE}/reset#token=`));
  assert.ok(Date.parse(made.json().expires_at) - Date.now() > 3_500_000);

  const aboveSelf = await adminSession.request({ method: 'POST', url: url(ownerUuid) });
  assert.equal(aboveSelf.statusCode, 403);
  const memberSession = await signIn(bare, member.email);
  const byMember = await memberSession.request({ method: 'POST', url: url(await uuidOf(admin.userId)) });
  assert.equal(byMember.statusCode, 403);
  assert.equal(byMember.json().detail, 'Only admins and owners can make password reset links.');

  const used = await complete(bare, tokenIn(link), NEW_PASSWORD);
  assert.equal(used.statusCode, 200, used.body);
  assert.equal((await memberSession.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 401);
  assert.equal((await login(bare, member.email, NEW_PASSWORD)).statusCode, 200);
});

test('with SMTP, an invite is mailed with its link (and not when send_email is false)', async () => {
  const response = await t.request({
    method: 'POST',
    url: `/api/organizations/${organizationId}/invites/`,
    payload: { target_email: 'newcomer@example.com', first_name: 'New' },
  });
  assert.equal(response.statusCode, 201, response.body);
  assert.equal(response.json().emailing_attempt_made, true);
  const mail = await mailbox.next('newcomer@example.com');
  assert.match(mail.subject ?? '', /invited you to Default organization on Bellwether/);
  assert.ok(mail.text?.includes(response.json().invite_url), mail.text);

  const quiet = await t.request({
    method: 'POST',
    url: `/api/organizations/${organizationId}/invites/`,
    payload: { target_email: 'quiet@example.com', send_email: false },
  });
  assert.equal(quiet.json().emailing_attempt_made, false);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(!mailbox.received.some((mail) => mail.text?.includes(quiet.json().invite_url)));
});

test('a token that never existed is refused the same way, and a session is not needed', async () => {
  const response = await complete(t, 'x'.repeat(43), NEW_PASSWORD);
  assert.equal(response.statusCode, 400);
  assert.equal(response.json().code, 'invalid_token');
  const signedIn = sessionOf(t, await login(t, OWNER_EMAIL, GOOD_PASSWORD));
  assert.ok(signedIn.sessionId);
});

test('an SMTP server that cannot be reached costs nothing to the request: the reset answer and the invite stand', async () => {
  const down = await startTestApp({ siteUrl: SITE, mail: { smtpUrl: 'smtp://127.0.0.1:9', from: 'bellwether@example.com' } });
  try {
    const { rows } = await down.db.pool.query<{ id: string }>('SELECT organization_id::text AS id FROM projects WHERE id = $1', [down.projectId]);
    const started = Date.now();
    assert.equal((await forgot(down, OWNER_EMAIL)).statusCode, 204);
    const invite = await down.request({ method: 'POST', url: `/api/organizations/${rows[0].id}/invites/`, payload: { target_email: 'late@example.com' } });
    assert.equal(invite.statusCode, 201, invite.body);
    assert.ok(Date.now() - started < 5_000, 'nobody waited for the SMTP server');
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await down.close();
  }
});
