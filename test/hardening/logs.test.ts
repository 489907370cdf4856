/**
 * Nothing secret in the logs (issue 12): the app runs with its production logger writing to a
 * buffer at the most verbose level, keys and tokens are sent every way a client can send them,
 * and the log must hold none of their values.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { createLogger, redactUrl } from '../../src/kernel/logging.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { givePassword, signIn } from '../helpers/session.ts';

let t: TestApp;
let log = '';

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  t = await startTestApp({ logger: createLogger('trace', sink) });
});
after(() => t.close());

test('keys and tokens sent by header, query, body and cookie never reach the log', async () => {
  const personalKey = t.key;
  const project = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Logged' } });
  assert.equal(project.statusCode, 201, project.body);
  const projectToken: string = project.json().api_token;
  const secretToken: string = project.json().secret_api_token;
  assert.match(projectToken, /^phc_/);
  assert.match(secretToken, /^phs_/);
  await givePassword(t);
  const session = await signIn(t);
  const wrongKey = `phx_${'w'.repeat(40)}`;

  const q = (value: string) => encodeURIComponent(value);
  const requests = [
    // Authorization header: a good key, a wrong key (401), the secret token.
    t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/` }),
    t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/`, key: wrongKey }),
    t.request({ method: 'GET', url: `/api/feature_flag/local_evaluation?token=${q(projectToken)}`, key: secretToken }),
    // Query string, under every name a client might use.
    t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/?personal_api_key=${q(personalKey)}`, key: null }),
    t.request({ method: 'GET', url: `/api/surveys/?token=${q(projectToken)}`, key: null }),
    t.request({ method: 'GET', url: `/flags/definitions?api_key=${q(personalKey)}&secret=${q(secretToken)}&key=${q(wrongKey)}`, key: null }),
    t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/?search=${q(secretToken)}`, key: null }),
    t.request({ method: 'GET', url: `/api/personal_api_keys/${q(personalKey)}/`, key: null }),
    // Bodies.
    t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: projectToken, batch: [{ event: 'e', distinct_id: 'd' }] } }),
    t.app.inject({ method: 'POST', url: `/flags?v=2&token=${q(projectToken)}`, payload: { token: projectToken, distinct_id: 'd' } }),
    t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: personalKey.slice(0, 40), scopes: ['*'] } }),
    // The session cookie and its CSRF token, on a read and on a write.
    session.request({ method: 'GET', url: '/api/users/@me/' }),
    session.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/0/`, payload: { name: 'x' } }),
    t.app.inject({ method: 'GET', url: '/api/users/@me/', headers: { cookie: `bellwether_session=${session.sessionId}x` } }),
  ];
  const responses = await Promise.all(requests);
  for (const response of responses) assert.ok(response.statusCode < 500, response.body);
  const created = responses[10].json();
  assert.match(created.value, /^phx_/);

  assert.ok(log.includes('incoming request') && log.includes('request completed'), 'requests are logged');
  assert.ok(log.includes('[redacted]'), 'redaction shows where a value was');
  const secrets = {
    personalKey,
    wrongKey,
    createdKey: created.value as string,
    projectToken,
    secretToken,
    sessionId: session.sessionId,
    csrfToken: session.csrfToken,
  };
  for (const [name, value] of Object.entries(secrets)) {
    assert.ok(!log.includes(value), `${name} appears in the log`);
    assert.ok(!log.includes(encodeURIComponent(value)), `${name} appears URL-encoded in the log`);
    assert.ok(!log.includes(value.slice(4, 24)), `the body of ${name} appears in the log`);
  }
  assert.doesNotMatch(log, /"authorization"|"cookie"|x-csrftoken/i);
});

test('invite ids (the sign-up link) and sign-in link tokens never reach the log', async () => {
  const organizationId = (await t.request({ method: 'GET', url: '/api/organizations/@current/' })).json().id;
  const created = await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/invites/`, payload: { target_email: 'logged@a.test' } });
  assert.equal(created.statusCode, 201, created.body);
  const inviteId: string = created.json().id;
  const cancelled = await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/invites/`, payload: { target_email: 'cancelled@a.test' } });
  const cancelledId: string = cancelled.json().id;
  const { ensureFirstOwner } = await import('../../src/accounts/first-owner.ts');
  await t.db.pool.query('UPDATE users SET password_hash = NULL');
  const { signInToken } = await ensureFirstOwner(t.db.pool, { email: null, password: null });
  assert.ok(signInToken);

  const before = log.length;
  const responses = await Promise.all([
    t.app.inject({ method: 'GET', url: `/api/signup/${inviteId}/` }),
    t.app.inject({ method: 'GET', url: `/api//signup//${inviteId}` }),
    t.app.inject({ method: 'GET', url: `/api/%73ignup/${inviteId}/` }),
    t.app.inject({ method: 'GET', url: `/signup/${inviteId}` }),
    t.app.inject({ method: 'POST', url: `/api/signup/${inviteId}/`, payload: { first_name: 'L', password: 'x' } }),
    t.request({ method: 'DELETE', url: `/api/organizations/${organizationId}/invites/${cancelledId}/` }),
    t.app.inject({ method: 'GET', url: `/login/one-time?token=${signInToken}` }),
    t.app.inject({ method: 'GET', url: `/login/one-time/${signInToken}` }),
    t.app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token: signInToken } }),
  ]);
  for (const response of responses) assert.ok(response.statusCode < 500, response.body);
  assert.equal(responses[0].statusCode, 200, 'the invite was read through the logged path');
  const written = log.slice(before);
  assert.ok(written.includes('/api/signup/[redacted]'), 'the path is still there, its secret is not');
  for (const [name, value] of Object.entries({ inviteId, cancelledId, signInToken })) {
    assert.ok(!written.includes(value), `${name} appears in the log`);
    assert.ok(!written.includes(value.slice(0, 12)), `the start of ${name} appears in the log`);
  }
});

test('redactUrl keeps what helps and hides what could be a secret', () => {
  assert.equal(redactUrl('/api/signup/0b5e2c4e-1111-4222-8333-944445555666/?x=1'), '/api/signup/[redacted]/?x=1');
  assert.equal(redactUrl('/signup/0b5e2c4e-1111-4222-8333-944445555666'), '/signup/[redacted]');
  assert.equal(redactUrl('/api/organizations/o/invites/0b5e2c4e/'), '/api/organizations/o/invites/[redacted]/');
  assert.equal(redactUrl('/api/organizations/o/invites/'), '/api/organizations/o/invites/');
  assert.equal(redactUrl('/login/one-time#token=abc'), '/login/one-time');
  assert.equal(redactUrl('/api/x/?limit=10&token=phc_abc&x=1'), '/api/x/?limit=10&token=[redacted]&x=1');
  assert.equal(redactUrl('/a?Personal_Api_Key=z&refresh_token=y&client_secret=s&password=p'), '/a?Personal_Api_Key=[redacted]&refresh_token=[redacted]&client_secret=[redacted]&password=[redacted]');
  assert.equal(redactUrl('/a?q=hello%20phx_abcdef&flag'), '/a?q=[redacted]&flag');
  assert.equal(redactUrl('/api/personal_api_keys/phx_abc123/'), '/api/personal_api_keys/[redacted]/');
  assert.equal(redactUrl('/a?%74oken=abc'), '/a?%74oken=[redacted]');
  assert.equal(redactUrl('/a?search=plain&limit=5'), '/a?search=plain&limit=5');
});
