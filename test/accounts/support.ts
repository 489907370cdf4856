import assert from 'node:assert/strict';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { addMembership, insertOrganization } from '../../src/accounts/organizations/store.ts';
import { insertPersonalApiKey } from '../../src/accounts/personal-api-keys/store.ts';
import { insertProject } from '../../src/accounts/projects/store.ts';
import { insertUser } from '../../src/accounts/users/store.ts';
import type { TestApp } from '../helpers/app.ts';
import { inUnit } from '../helpers/database.ts';

export interface CreatedKey {
  id: string;
  value: string;
  body: Record<string, unknown>;
}

/** A key made through the API with the test app's `*` key (or `as`). */
export async function createKey(t: TestApp, body: Record<string, unknown>, as?: string): Promise<CreatedKey> {
  const res = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: body, key: as });
  assert.equal(res.statusCode, 201, res.body);
  const json = res.json();
  return { id: json.id, value: json.value, body: json };
}

export async function createProject(t: TestApp, body: Record<string, unknown>, url = '/api/projects/'): Promise<Record<string, any>> {
  const res = await t.request({ method: 'POST', url, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function createOrganization(t: TestApp, name: string): Promise<Record<string, any>> {
  const res = await t.request({ method: 'POST', url: '/api/organizations/', payload: { name } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function currentOrganizationId(t: TestApp): Promise<string> {
  const res = await t.request({ method: 'GET', url: '/api/organizations/@current/' });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

/** An organization with one project that the test app's user does not belong to. */
export async function foreignOrganization(t: TestApp): Promise<{ organizationId: string; projectId: number }> {
  const organization = await inUnit(t.db.pool, (tx) => insertOrganization(tx, 'Somebody else'));
  const { project } = await inUnit(t.db.pool, (tx) => insertProject(tx, { organizationId: organization.id, name: 'Not yours' }));
  return { organizationId: organization.id, projectId: project.id };
}

/** Another user, member of `organizationId` at `level`, with a `*` key of their own. */
export async function otherUser(
  t: TestApp,
  organizationId: string,
  level: 'member' | 'admin' | 'owner',
): Promise<{ userId: number; key: string }> {
  const email = `user-${Math.random().toString(36).slice(2)}@example.com`;
  const { id } = await inUnit(t.db.pool, (tx) => insertUser(tx, { email, firstName: 'Other', currentOrganizationId: organizationId, currentProjectId: null }));
  await inUnit(t.db.pool, (tx) => addMembership(tx, organizationId, id, level));
  const key = generateSecret(PERSONAL_KEY_PREFIX);
  await inUnit(t.db.pool, (tx) => insertPersonalApiKey(tx, { userId: id, label: 'other', value: key, scopes: ['*'], scopedTeams: null, scopedOrganizations: null }));
  return { userId: id, key };
}

export const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

export function permissionDenied(detail: string) {
  return { type: 'authentication_error', code: 'permission_denied', detail, attr: null };
}

export const NO_PROJECT_ACCESS = permissionDenied("You don't have access to the project.");
