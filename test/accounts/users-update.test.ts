// PATCH /api/users/@me/: names, e-mail, and the password change (current password, rules,
// throttling, other sessions end, this one stays).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertValidation } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, login, personWithPassword, signIn } from '../helpers/session.ts';
import { createKey, currentOrganizationId, permissionDenied } from './support.ts';
import { inUnit } from '../helpers/database.ts';

const NEW_PASSWORD = 'another long passphrase';

let t: TestApp;
let orgId: string;
before(async () => {
  t = await startTestApp({ loginThrottle: { windowMs: 60_000, accountLimit: 3, addressLimit: 100 } });
  orgId = await currentOrganizationId(t);
});
after(() => t.close());

describe('PATCH /api/users/@me/', () => {
  test('names and e-mail change and are answered with the whole Me', async () => {
    const { email } = await personWithPassword(t, orgId, 'member');
    const session = await signIn(t, email);
    const newEmail = `renamed-${Date.now()}@example.com`;
    const response = await session.request({ method: 'PATCH', url: '/api/users/@me/', payload: { first_name: ' Ada ', last_name: 'Lovelace', email: newEmail, current_password: GOOD_PASSWORD } });
    assert.equal(response.statusCode, 200, response.body);
    const me = response.json();
    assert.equal(me.first_name, 'Ada');
    assert.equal(me.last_name, 'Lovelace');
    assert.equal(me.email, newEmail);
    assert.equal(me.has_password, true);
    assert.equal(me.organization.id, orgId);
    assert.equal((await login(t, newEmail, GOOD_PASSWORD)).statusCode, 200, 'signs in with the new address');
  });

  test('a new e-mail address needs the current password (PostHog\'s field); names alone do not', async () => {
    const { email } = await personWithPassword(t, orgId, 'member');
    const session = await signIn(t, email);
    const patch = (payload: Record<string, unknown>) => session.request({ method: 'PATCH', url: '/api/users/@me/', payload });
    const taken = `taken-${Date.now()}@example.com`;

    assertValidation(await patch({ email: taken }), 'This field is required when updating your email address.', 'current_password', 'required');
    const wrong = await patch({ email: taken, current_password: 'not it at all' });
    assertValidation(wrong, 'Your current password is incorrect.', 'current_password', 'incorrect_password');
    const { rows } = await t.db.pool.query('SELECT email FROM users WHERE lower(email) = lower($1)', [email]);
    assert.equal(rows.length, 1, 'the address did not change');

    assert.equal((await patch({ first_name: 'Renamed' })).statusCode, 200, 'a name needs no password');
    assert.equal((await patch({ email })).statusCode, 200, 'the same address is no change');
    const changed = await patch({ email: taken, current_password: GOOD_PASSWORD });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().email, taken);
  });

  test('a key cannot change the address either without the password', async () => {
    const { email, userId } = await personWithPassword(t, orgId, 'member');
    const key = `phx_${Math.random().toString(36).slice(2)}${'k'.repeat(30)}`;
    const { insertPersonalApiKey } = await import('../../src/accounts/personal-api-keys/store.ts');
    await inUnit(t.db.pool, (tx) => insertPersonalApiKey(tx, { userId, label: 'k', value: key, scopes: ['*'], scopedTeams: null, scopedOrganizations: null }));
    const refused = await t.request({ method: 'PATCH', url: '/api/users/@me/', payload: { email: `stolen-${Date.now()}@example.com` }, key });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().attr, 'current_password');
    assert.equal((await t.db.pool.query('SELECT email FROM users WHERE id = $1', [userId])).rows[0].email, email);
  });

  test('bad values: 400 on their field; an address another account has (any case): 400 unique', async () => {
    const { email } = await personWithPassword(t, orgId, 'member');
    const session = await signIn(t, email);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ first_name: '  ' }, 'first_name', 'blank'],
      [{ email: 'nope' }, 'email', 'invalid'],
      [{ email: 'ADMIN@bellwether.local' }, 'email', 'unique'],
      [{ first_name: 'x'.repeat(151) }, 'first_name', 'max_length'],
    ];
    for (const [payload, attr, code] of cases) {
      const response = await session.request({ method: 'PATCH', url: '/api/users/@me/', payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().attr, attr);
      if (code !== 'max_length') assert.equal(response.json().code, code, response.body);
    }
  });

  test('a password change needs the current password and the rules; it ends the other sessions and keeps this one', async () => {
    const { email } = await personWithPassword(t, orgId, 'member');
    const here = await signIn(t, email);
    const elsewhere = await signIn(t, email);
    const patch = (payload: Record<string, unknown>) => here.request({ method: 'PATCH', url: '/api/users/@me/', payload });

    assertValidation(await patch({ password: NEW_PASSWORD }), 'This field is required when updating your password.', 'current_password', 'required');
    const wrong = await patch({ password: NEW_PASSWORD, current_password: 'not it at all' });
    assertValidation(wrong, 'Your current password is incorrect.', 'current_password', 'incorrect_password');
    const weak = await patch({ password: '12345678901', current_password: GOOD_PASSWORD });
    assert.equal(weak.statusCode, 400);
    assert.equal(weak.json().attr, 'password');
    assert.equal((await elsewhere.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 200, 'nothing changed yet');

    const changed = await patch({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await here.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 200, 'this session stays');
    assert.equal((await elsewhere.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 401, 'the other session ended');
    assert.equal((await login(t, email, GOOD_PASSWORD)).statusCode, 400);
    assert.equal((await login(t, email, NEW_PASSWORD)).statusCode, 200);
  });

  test('wrong current passwords count toward sign-in throttling (429)', async () => {
    const { email } = await personWithPassword(t, orgId, 'member');
    const session = await signIn(t, email);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await session.request({ method: 'PATCH', url: '/api/users/@me/', payload: { password: NEW_PASSWORD, current_password: `wrong ${i}` } });
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [400, 400, 400, 429]);
  });

  test('someone without a password sets one without current_password', async () => {
    const { rows } = await t.db.pool.query<{ id: number }>(
      "INSERT INTO users (distinct_id, email, first_name) VALUES ('linkonly', 'link-only@example.com', 'Link') RETURNING id",
    );
    await t.db.pool.query("INSERT INTO organization_memberships (organization_id, user_id, level) VALUES ($1, $2, 'member')", [orgId, rows[0].id]);
    const key = `phx_linkonly${Date.now()}abcdefghijklmnopqrstuvwxyz`;
    await t.db.pool.query(
      "INSERT INTO personal_api_keys (user_id, label, secure_value, mask_value, scopes) VALUES ($1, 'k', encode(sha256($2::bytea), 'hex'), 'phx_...', '{*}')",
      [rows[0].id, key],
    );
    const before = await t.request({ method: 'GET', url: '/api/users/@me/', key });
    assert.equal(before.json().has_password, false);
    const response = await t.request({ method: 'PATCH', url: '/api/users/@me/', key, payload: { password: NEW_PASSWORD } });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().has_password, true);
    assert.equal((await login(t, 'link-only@example.com', NEW_PASSWORD)).statusCode, 200);
  });

  test('a session write needs the CSRF token; a key needs user:write', async () => {
    const session = await signIn(t, (await personWithPassword(t, orgId, 'member')).email);
    const refused = await session.request({ method: 'PATCH', url: '/api/users/@me/', payload: { first_name: 'Nope' }, csrf: null });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'csrf_failed');
    const reader = await createKey(t, { label: 'me', scopes: ['user:read'] });
    const denied = await t.request({ method: 'PATCH', url: '/api/users/@me/', key: reader.value, payload: { first_name: 'Nope' } });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope 'user:write'"));
  });
});
