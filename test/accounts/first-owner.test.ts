// The first way into the console: a one-time sign-in link while nobody has a password, and the
// owner INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD describe, idempotent on every start.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { verifyPassword } from '../../src/accounts/auth/passwords.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';
import { ensureFirstOwner } from '../../src/accounts/first-owner.ts';
import { printStarted } from '../../src/started.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/eventually.ts';

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
    const firstOwner = await ensureFirstOwner(db.pool, { email: null, password: null });
    const token = firstOwner.signInToken;
    assert.ok(token && token.length >= 40);
    assert.equal(firstOwner.signInEmail, 'admin@bellwether.local', 'whom the link signs in, printed beside it');
    const printed: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((text: string) => printed.push(text) > 0) as typeof process.stdout.write;
    try {
      printStarted('http://127.0.0.1:8000', null, { generatedKey: null, projectId: 1, signInToken: token, signInEmail: firstOwner.signInEmail });
    } finally {
      process.stdout.write = write;
    }
    assert.match(printed.join(''), /sign in as its owner, admin@bellwether\.local \(one-time link/);
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
    const first = (await ensureFirstOwner(db.pool, { email: null, password: null })).signInToken;
    const second = (await ensureFirstOwner(db.pool, { email: null, password: null })).signInToken;
    assert.ok(first && second && first !== second);
    await db.pool.query("UPDATE users SET password_hash = 'scrypt$14$8$1$x$y'");
    assert.equal((await ensureFirstOwner(db.pool, { email: null, password: null })).signInToken, null);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM users');
    assert.equal(rows[0].n, 1, 'no second owner is made');
  });
});

describe('with INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD', () => {
  test('that person is an owner with that password; no link is needed', async () => {
    await bootstrap(db.pool, null, 'ops@example.com');
    const token = (await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD })).signInToken;
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
    const token = (await ensureFirstOwner(db.pool, { email: 'lead@example.com', password: null })).signInToken;
    assert.ok(token);
    const { rows } = await db.pool.query('SELECT u.email FROM sign_in_tokens t JOIN users u ON u.id = t.user_id');
    assert.deepEqual(rows, [{ email: 'lead@example.com' }]);
  });

  test('a weak password or a malformed e-mail stops the start with the rule it broke (the password is not in the message)', async () => {
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'short' }), /^Error: INIT_ADMIN_PASSWORD: This password is too short/);
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'password123' }), (error: Error) => {
      assert.match(error.message, /^INIT_ADMIN_PASSWORD: This password is too weak\./);
      assert.doesNotMatch(error.message, /password123/);
      return true;
    });
    await assert.rejects(ensureFirstOwner(db.pool, { email: 'not an address', password: PASSWORD }), /INIT_ADMIN_EMAIL: Enter a valid email address/);
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM users')).rows[0].n, 0);
  });
});

describe('the owner is remembered by user id', () => {
  const ownerOfProjectOne = async () =>
    (
      await db.pool.query(
        `SELECT u.email FROM organization_memberships m JOIN users u ON u.id = m.user_id
           JOIN projects p ON p.organization_id = m.organization_id AND p.id = 1
          WHERE m.level = 'owner' ORDER BY u.id`,
      )
    ).rows.map((r: { email: string }) => r.email);

  test('INIT_ADMIN_EMAIL taken by someone else after the owner moved: ignored with a warning, nobody raised, no password set', async () => {
    await bootstrap(db.pool, null, 'ops@example.com');
    assert.equal((await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD })).warning, null);
    // The owner changes address; another account (a member elsewhere) takes the old one.
    await db.pool.query("UPDATE users SET email = 'ops-new@example.com' WHERE email = 'ops@example.com'");
    const { rows } = await db.pool.query(
      "INSERT INTO users (email, first_name, distinct_id) VALUES ('ops@example.com', 'Mallory', 'mallory') RETURNING id",
    );
    const malloryId = rows[0].id;

    const { warning, signInToken } = await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'mallory picks this passphrase' });
    assert.match(warning ?? '', /INIT_ADMIN_EMAIL is ops@example\.com, but the owner it made \(user \d+\) now has the address ops-new@example\.com/);
    assert.equal(signInToken, null);
    assert.deepEqual(await ownerOfProjectOne(), ['ops-new@example.com'], 'only the remembered owner is an owner');
    const mallory = (await db.pool.query('SELECT password_hash FROM users WHERE id = $1', [malloryId])).rows[0];
    assert.equal(mallory.password_hash, null, 'INIT_ADMIN_PASSWORD went to nobody');
    const memberships = (await db.pool.query('SELECT count(*)::int AS n FROM organization_memberships WHERE user_id = $1', [malloryId])).rows[0].n;
    assert.equal(memberships, 0);

    // INIT_API_KEY made now goes to the remembered owner, not to the address's holder.
    await bootstrap(db.pool, 'phx_init_key_after_the_move_0000000000000000', 'ops@example.com');
    const keyOwner = (await db.pool.query("SELECT u.email FROM personal_api_keys k JOIN users u ON u.id = k.user_id WHERE k.label = 'INIT_API_KEY'")).rows;
    assert.deepEqual(keyOwner, [{ email: 'ops-new@example.com' }]);

    // Following the owner's new address works again, and so does leaving INIT_ADMIN_EMAIL unset.
    assert.equal((await ensureFirstOwner(db.pool, { email: 'OPS-new@example.com', password: PASSWORD })).warning, null);
    assert.equal((await ensureFirstOwner(db.pool, { email: null, password: null })).warning, null);
  });

  test('without INIT_ADMIN_EMAIL, the first start\'s address given up and taken does not make its taker owner', async () => {
    await bootstrap(db.pool, null);
    await db.pool.query("UPDATE users SET email = 'me@example.com' WHERE email = 'admin@bellwether.local'");
    await db.pool.query("INSERT INTO users (email, first_name, distinct_id) VALUES ('admin@bellwether.local', 'Mallory', 'mallory')");
    await bootstrap(db.pool, 'phx_init_key_later_000000000000000000000000');
    assert.deepEqual(await ownerOfProjectOne(), ['me@example.com']);
    const keyOwner = (await db.pool.query("SELECT u.email FROM personal_api_keys k JOIN users u ON u.id = k.user_id WHERE k.label = 'INIT_API_KEY'")).rows;
    assert.deepEqual(keyOwner, [{ email: 'me@example.com' }]);
  });

  test('setting a password at start-up ends every session of that owner, in other processes too', async () => {
    await bootstrap(db.pool, null, 'ops@example.com');
    await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD });
    const app = await buildApp({ pool: db.pool, databaseUrl: db.url });
    try {
      const signedIn = await app.inject({ method: 'POST', url: '/api/login/', payload: { email: 'ops@example.com', password: PASSWORD } });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      const cookie = signedIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const me = () => app.inject({ method: 'GET', url: '/api/users/@me/', headers: { cookie } });
      assert.equal((await me()).statusCode, 200);

      // The same password again: nothing changes, the session lives.
      await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: PASSWORD });
      assert.equal((await me()).statusCode, 200);

      await ensureFirstOwner(db.pool, { email: 'ops@example.com', password: 'a brand new operator passphrase' });
      const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'ops@example.com'");
      assert.equal(rows[0].n, 0, 'the sessions are gone from the database');
      // The running app heard the notice: its 5-second cache does not keep the session alive.
      const status = await eventually('the dropped session refused', async () => (await me()).statusCode, (code) => code !== 200, { intervalMs: 50 });
      assert.equal(status, 401);
    } finally {
      await app.close();
    }
  });
});
