// The first way into the console: a one-time sign-in link while nobody has a password, and the
// owner INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD describe, idempotent on every start.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { verifyPassword } from '../../src/accounts/auth/passwords.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';
import { ensureFirstOwner } from '../../src/accounts/first-owner.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const PASSWORD = 'a long init passphrase';
let db: TestDatabase;

beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await db.drop();
});

async function ownerOf(email: string) {
  const { rows } = await db.pool.query(
    `SELECT u.id, u.password_hash, m.level FROM users u
       JOIN organization_memberships m ON m.user_id = u.id
       JOIN projects p ON p.organization_id = m.organization_id AND p.id = 1
      WHERE lower(u.email) = lower($1)`,
    [email],
  );
  return rows[0] as { id: number; password_hash: string | null; level: string } | undefined;
}

describe('without INIT_ADMIN_*', () => {
  test('an empty database gets project 1 and an owner, and a sign-in token that signs them in once', async () => {
    await bootstrap(db.pool, null);
    const token = await ensureFirstOwner(db.pool, { email: null, password: null });
    assert.ok(token && token.length >= 40);
    const owner = await ownerOf('admin@bellwether.local');
    assert.equal(owner?.level, 'owner');
    assert.equal(owner?.password_hash, null);

    const app = await buildApp({ pool: db.pool, databaseUrl: db.url });
    try {
      const first = await app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token } });
      assert.equal(first.statusCode, 200, first.body);
      const again = await app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token } });
      assert.equal(again.statusCode, 400);
    } finally {
      await app.close();
    }
  });

  test('every start hands out a new link until someone has a password; then none', async () => {
    const first = await ensureFirstOwner(db.pool, { email: null, password: null });
    const second = await ensureFirstOwner(db.pool, { email: null, password: null });
    assert.ok(first && second && first !== second);
    await db.pool.query("UPDATE users SET password_hash = 'scrypt$14$8$1$x$y'");
    assert.equal(await ensureFirstOwner(db.pool, { email: null, password: null }), null);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM users');
    assert.equal(rows[0].n, 1, 'no second owner is made');
  });
});

describe('with INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD', () => {
  test('that person is an owner with that password; no link is needed', async () => {
    await bootstrap(db.pool, null, 'ops@example.com');
    const token = await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD });
    assert.equal(token, null);
    const owner = await ownerOf('ops@example.com');
    assert.equal(owner?.level, 'owner');
    assert.ok(await verifyPassword(PASSWORD, owner!.password_hash));
    const key = await db.pool.query('SELECT user_id FROM personal_api_keys');
    assert.deepEqual(key.rows, [{ user_id: owner!.id }], 'the first key is theirs too');
  });

  test('idempotent: the same password keeps its hash; a new one replaces it; a demoted owner is an owner again', async () => {
    await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD });
    const before = (await ownerOf('ops@example.com'))!.password_hash;
    await ensureFirstOwner(db.pool, { email: 'OPS@example.com', password: PASSWORD });
    assert.equal((await ownerOf('ops@example.com'))!.password_hash, before);
    await db.pool.query("UPDATE organization_memberships SET level = 'member'");
    await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'a different passphrase' });
    const after = (await ownerOf('ops@example.com'))!;
    assert.equal(after.level, 'owner');
    assert.ok(await verifyPassword('a different passphrase', after.password_hash));
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n, 1);
  });

  test('an e-mail alone: that owner exists and gets the link', async () => {
    const token = await ensureFirstOwner(db.pool, { email: 'lead@example.com', password: null });
    assert.ok(token);
    const { rows } = await db.pool.query('SELECT u.email FROM sign_in_tokens t JOIN users u ON u.id = t.user_id');
    assert.deepEqual(rows, [{ email: 'lead@example.com' }]);
  });

  test('a weak password or a malformed e-mail stops the start with the rule it broke (the password is not in the message)', async () => {
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'short' }), /^Error: INIT_ADMIN_PASSWORD: This password is too short/);
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'password123' }), (error: Error) => {
      assert.match(error.message, /^INIT_ADMIN_PASSWORD: This password is too common/);
      assert.doesNotMatch(error.message, /password123/);
      return true;
    });
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'not an address', password: PASSWORD }), /INIT_ADMIN_EMAIL: Enter a valid email address/);
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n, 0);
  });
});
