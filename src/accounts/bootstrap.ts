import type { Pool } from '../db/pool.ts';
import { UnitsOfWork, type WriteTx } from '../db/unit-of-work.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from './auth/keys.ts';
import { addMembership, firstOwnerOf, insertOrganization } from './organizations/store.ts';
import { findProject, insertProject, type ProjectRow } from './projects/store.ts';
import { countKeys, insertPersonalApiKey, keyExistsWithValue } from './personal-api-keys/store.ts';
import { findUserIdByEmail, insertUser } from './users/store.ts';

export const BOOTSTRAP_LOCK_ID = 727_002;
export const BOOTSTRAP_EMAIL = 'admin@bellwether.local';

export interface BootstrapResult {
  /** The key created by this start, in clear, to be printed once; null when none was created. */
  generatedKey: string | null;
  projectId: number;
}

/** Project 1 and its organization: created once, found on every later start. */
async function ensureProjectOne(client: WriteTx): Promise<ProjectRow> {
  const project = await findProject(client, 1);
  if (project) return project;
  const organization = await insertOrganization(client, 'Default organization');
  return (await insertProject(client, { id: 1, organizationId: organization.id, name: 'Default project' })).project;
}

async function findOrCreateUser(client: WriteTx, email: string, project: ProjectRow): Promise<number> {
  const existing = await findUserIdByEmail(client, email);
  if (existing !== null) return existing;
  const created = await insertUser(client, { email, firstName: 'Admin', currentOrganizationId: project.organization_id, currentProjectId: project.id });
  return created.id;
}

export interface BootstrapOwner {
  userId: number;
  projectId: number;
  organizationId: string;
  /**
   * Set when INIT_ADMIN_EMAIL names someone else than the owner start-up made: INIT_ADMIN_EMAIL and
   * INIT_ADMIN_PASSWORD are then ignored, and this says why (to be logged as a warning).
   */
  ignoredInitAdmin: string | null;
}

/**
 * The owner start-up works for, remembered by user id (table `bootstrap_owner`) from the first
 * time it is decided: INIT_ADMIN_EMAIL's person then (found or created), else the first owner of
 * project 1's organization, else `admin@bellwether.local` on an empty database. Later starts use
 * that person whatever address they have now, so an address given up by the owner and taken by
 * someone else (`PATCH /api/users/@me/`) hands that someone nothing. Once INIT_ADMIN_EMAIL has
 * decided the owner, naming another address is ignored, with the reason in `ignoredInitAdmin`:
 * refusing to start would let whoever takes the address stop the service. The first
 * INIT_ADMIN_EMAIL after starts without one names its person, as on a first start.
 */
export async function bootstrapOwner(client: WriteTx, initAdminEmail: string | null): Promise<BootstrapOwner> {
  const project = await ensureProjectOne(client);
  const at = { projectId: project.id, organizationId: project.organization_id };
  const { rows } = await client.query<{ user_id: number; email: string; source: string; named: boolean }>(
    `SELECT b.user_id, u.email, b.source, $1::text IS NULL OR lower(u.email) = lower($1) AS named
       FROM bootstrap_owner b JOIN users u ON u.id = b.user_id`,
    [initAdminEmail],
  );
  const remembered = rows[0];
  if (remembered && (remembered.named || remembered.source === 'init_admin_email')) {
    const ignoredInitAdmin = remembered.named
      ? null
      : `INIT_ADMIN_EMAIL is ${initAdminEmail}, but the owner it made (user ${remembered.user_id}) now has the address ` +
        `${remembered.email}: INIT_ADMIN_EMAIL and INIT_ADMIN_PASSWORD are ignored, nobody is made owner. Set INIT_ADMIN_EMAIL ` +
        `to ${remembered.email}, or unset it.`;
    return { userId: remembered.user_id, ...at, ignoredInitAdmin };
  }
  // Nobody remembered yet, or INIT_ADMIN_EMAIL given for the first time after starts without it.
  const userId =
    initAdminEmail !== null
      ? await findOrCreateUser(client, initAdminEmail, project)
      : ((await firstOwnerOf(client, project.organization_id)) ?? (await findOrCreateUser(client, BOOTSTRAP_EMAIL, project)));
  await client.query(
    `INSERT INTO bootstrap_owner (user_id, source) VALUES ($1, $2)
     ON CONFLICT (singleton) DO UPDATE SET user_id = EXCLUDED.user_id, source = EXCLUDED.source, created_at = now()`,
    [userId, initAdminEmail === null ? 'first_start' : 'init_admin_email'],
  );
  // An existing member keeps their level here; INIT_ADMIN_EMAIL's person is raised to owner by ensureFirstOwner.
  await addMembership(client, project.organization_id, userId, 'owner');
  return { userId, ...at, ignoredInitAdmin: null };
}

/**
 * With INIT_API_KEY: make sure that exact key exists with scope `*` (idempotent), the bootstrap
 * owner's. Without it: on a database with no key at all, create one for the bootstrap owner and
 * hand it back to be printed once.
 */
export async function bootstrap(pool: Pool, initApiKey: string | null, initAdminEmail: string | null = null): Promise<BootstrapResult> {
  return new UnitsOfWork(pool).run(async ({ client }) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_ID]);
    if (initApiKey !== null) {
      const { userId, projectId } = await bootstrapOwner(client, initAdminEmail);
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
    const { userId, projectId } = await bootstrapOwner(client, initAdminEmail);
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
