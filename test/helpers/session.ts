/** Signing people in for API tests: passwords, cookies, requests made with the session. */
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { hashPassword } from '../../src/accounts/auth/passwords.ts';
import { addMembership } from '../../src/accounts/organizations/store.ts';
import { findUserIdByEmail, insertUser, setPasswordHash } from '../../src/accounts/users/store.ts';
import type { TestApp } from './app.ts';
import { inUnit } from './database.ts';

export const OWNER_EMAIL = 'admin@bellwether.local';
export const GOOD_PASSWORD = 'correct horse battery staple';

export interface SignedIn {
  sessionId: string;
  csrfToken: string;
  /** Sends a request with the session cookie and, unless `csrf` says otherwise, the CSRF header. */
  request(options: InjectOptions & { csrf?: string | null }): Promise<LightMyRequestResponse>;
}

export function cookie(response: LightMyRequestResponse, name: string) {
  return (response.cookies as { name: string; value: string; [attribute: string]: unknown }[]).find((c) => c.name === name);
}

/** Gives the user with this e-mail a password (the owner of the test app by default). */
export async function givePassword(t: TestApp, password = GOOD_PASSWORD, email = OWNER_EMAIL): Promise<number> {
  const id = await findUserIdByEmail(t.db.pool, email);
  assert.ok(id !== null, `no user ${email}`);
  const hash = await hashPassword(password);
  await inUnit(t.db.pool, (tx) => setPasswordHash(tx, id, hash));
  return id;
}

/** A new user with a password, member of `organizationId` at `level`. */
export async function personWithPassword(
  t: TestApp,
  organizationId: string,
  level: 'member' | 'admin' | 'owner',
  email = `person-${Math.random().toString(36).slice(2)}@example.com`,
): Promise<{ userId: number; email: string }> {
  const { id } = await inUnit(t.db.pool, (tx) => insertUser(tx, { email, firstName: 'Person', currentOrganizationId: organizationId, currentProjectId: null }));
  await inUnit(t.db.pool, (tx) => addMembership(tx, organizationId, id, level));
  await givePassword(t, GOOD_PASSWORD, email);
  return { userId: id, email };
}

export function sessionOf(t: TestApp, response: LightMyRequestResponse): SignedIn {
  const session = cookie(response, 'bellwether_session');
  const csrf = cookie(response, 'bellwether_csrftoken');
  assert.ok(session && csrf, `both cookies are set: ${JSON.stringify(response.headers['set-cookie'])}`);
  return {
    sessionId: session.value,
    csrfToken: csrf.value,
    request({ csrf: csrfOverride, headers, ...options }) {
      const token = csrfOverride === undefined ? csrf.value : csrfOverride;
      return t.request({
        ...options,
        key: null,
        headers: {
          cookie: `bellwether_session=${session.value}; bellwether_csrftoken=${csrf.value}`,
          ...(token === null ? {} : { 'x-csrftoken': token }),
          ...headers,
        },
      });
    },
  };
}

export function login(t: TestApp, email: string, password: string, extra: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/api/login/', payload: { email, password }, key: null, ...extra });
}

export async function signIn(t: TestApp, email = OWNER_EMAIL, password = GOOD_PASSWORD): Promise<SignedIn> {
  const response = await login(t, email, password);
  assert.equal(response.statusCode, 200, response.body);
  return sessionOf(t, response);
}
