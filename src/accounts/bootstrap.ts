import type { Pool, PoolClient } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from './auth/keys.ts';
import { addMembership, insertOrganization } from './organizations/store.ts';
import { findProject, insertProject } from './projects/store.ts';
import { countKeys, insertPersonalApiKey, keyExistsWithValue } from './personal-api-keys/store.ts';
import { findUserIdByEmail, insertUser } from './users/store.ts';

export const BOOTSTRAP_LOCK_ID = 727_002;
export const BOOTSTRAP_EMAIL = 'admin@bellwether.local';

export interface BootstrapResult {
  /** The key created by this start, in clear, to be printed once; null when none was created. */
  generatedKey: string | null;
  projectId: number;
}

/**
 * Project 1, its organization and an owner (`email`, by default the first start's): created once,
 * found on every later start (an existing member with that e-mail keeps their level).
 */
export async function ensureOwnerAndProject(
  client: PoolClient,
  email = BOOTSTRAP_EMAIL,
): Promise<{ userId: number; projectId: number; organizationId: string }> {
  let project = await findProject(client, 1);
  if (!project) {
    const organization = await insertOrganization(client, 'Default organization');
    project = (await insertProject(client, { id: 1, organizationId: organization.id, name: 'Default project' })).project;
  }
  let userId = await findUserIdByEmail(client, email);
  if (userId === null) {
    userId = (
      await insertUser(client, {
        email,
        firstName: 'Admin',
        currentOrganizationId: project.organization_id,
        currentProjectId: project.id,
      })
    ).id;
  }
  await addMembership(client, project.organization_id, userId, 'owner');
  return { userId, projectId: project.id, organizationId: project.organization_id };
}

/**
 * With INIT_API_KEY: make sure that exact key exists with scope `*` (idempotent). Without it:
 * on a database with no key at all, create one and hand it back to be printed once.
 */
export async function bootstrap(pool: Pool, initApiKey: string | null, ownerEmail = BOOTSTRAP_EMAIL): Promise<BootstrapResult> {
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_ID]);
    if (initApiKey !== null) {
      const { userId, projectId } = await ensureOwnerAndProject(client, ownerEmail);
      if (!(await keyExistsWithValue(client, initApiKey))) {
        await insertPersonalApiKey(client, {
          userId,
          label: 'INIT_API_KEY',
          value: initApiKey,
          scopes: ['*'],
          scopedTeams: null,
          scopedOrganizations: null,
        });
      }
      return { generatedKey: null, projectId };
    }
    if ((await countKeys(client)) > 0) return { generatedKey: null, projectId: 1 };
    const { userId, projectId } = await ensureOwnerAndProject(client, ownerEmail);
    const value = generateSecret(PERSONAL_KEY_PREFIX);
    await insertPersonalApiKey(client, {
      userId,
      label: 'First key',
      value,
      scopes: ['*'],
      scopedTeams: null,
      scopedOrganizations: null,
    });
    return { generatedKey: value, projectId };
  });
}
