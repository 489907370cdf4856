import type { ReadHandle } from '../../db/pool.ts';
import type { PoolWrite } from '../../db/unit-of-work.ts';
import type { KeyPrincipal, Membership, Principal, ProjectRef, SessionPrincipal } from './principal.ts';

interface UserAndMemberships {
  user: Principal['user'];
  memberships: { organization_id: string; level: Membership['level'] }[];
}

/** The principal's user (alias `u`) and their memberships, as two JSON columns. */
const USER_AND_MEMBERSHIPS_SQL = `
  json_build_object('id', u.id, 'uuid', u.uuid, 'distinct_id', u.distinct_id, 'first_name', u.first_name,
    'last_name', u.last_name, 'email', u.email, 'is_email_verified', u.is_email_verified,
    'hedgehog_config', u.hedgehog_config, 'role_at_organization', u.role_at_organization,
    'current_project_id', u.current_project_id, 'current_organization_id', u.current_organization_id) AS user,
  COALESCE((SELECT json_agg(json_build_object('organization_id', m.organization_id, 'level', m.level) ORDER BY m.joined_at)
            FROM organization_memberships m WHERE m.user_id = u.id), '[]'::json) AS memberships`;

function memberships(row: UserAndMemberships): Membership[] {
  return row.memberships.map((m) => ({ organizationId: m.organization_id, level: m.level }));
}

interface KeyRow extends UserAndMemberships {
  key_id: string;
  secure_value: string;
  scopes: string[];
  scoped_teams: number[] | null;
  scoped_organizations: string[] | null;
}

export interface FoundPrincipal {
  principal: KeyPrincipal;
  secureValue: string;
}

/**
 * The credential whose hashed column equals `hash` (`columns` of `from`, an alias joined to its
 * user `u`), with that user and their memberships; null when none is.
 */
async function findCredential<R extends UserAndMemberships>(db: ReadHandle, columns: string, from: string, hashColumn: string, hash: string): Promise<R | null> {
  const { rows } = await db.query<R>(
    `SELECT ${columns}, ${USER_AND_MEMBERSHIPS_SQL}
       FROM ${from}
      WHERE ${hashColumn} = $1`,
    [hash],
  );
  return rows[0] ?? null;
}

export async function findPrincipalByKeyHash(db: ReadHandle, hash: string): Promise<FoundPrincipal | null> {
  const row = await findCredential<KeyRow>(
    db,
    'k.id AS key_id, k.secure_value, k.scopes, k.scoped_teams, k.scoped_organizations::text[] AS scoped_organizations',
    'personal_api_keys k JOIN users u ON u.id = k.user_id',
    'k.secure_value',
    hash,
  );
  if (!row) return null;
  return {
    secureValue: row.secure_value,
    principal: {
      kind: 'personal_api_key',
      keyId: row.key_id,
      user: row.user,
      scopes: new Set(row.scopes),
      scopedTeams: row.scoped_teams,
      scopedOrganizations: row.scoped_organizations,
      memberships: memberships(row),
    },
  };
}

interface SessionRow extends UserAndMemberships {
  id_hash: string;
  csrf_hash: string;
  last_seen_at: Date;
  expires_at: Date;
}

export interface FoundSession {
  principal: SessionPrincipal;
  lastSeenAt: number;
  expiresAt: number;
}

const ALL_SCOPES: ReadonlySet<string> = new Set(['*']);

export async function findSessionByHash(db: ReadHandle, hash: string): Promise<FoundSession | null> {
  const row = await findCredential<SessionRow>(
    db,
    's.id_hash, s.csrf_hash, s.last_seen_at, s.expires_at',
    'sessions s JOIN users u ON u.id = s.user_id',
    's.id_hash',
    hash,
  );
  if (!row) return null;
  return {
    lastSeenAt: row.last_seen_at.getTime(),
    expiresAt: row.expires_at.getTime(),
    principal: {
      kind: 'session',
      sessionHash: row.id_hash,
      csrfHash: row.csrf_hash,
      user: row.user,
      scopes: ALL_SCOPES,
      scopedTeams: null,
      scopedOrganizations: null,
      memberships: memberships(row),
    },
  };
}

export async function findProjectRef(db: ReadHandle, projectId: number): Promise<ProjectRef | null> {
  const { rows } = await db.query<{ id: number; organization_id: string }>(
    'SELECT id, organization_id FROM projects WHERE id = $1',
    [projectId],
  );
  return rows[0] ? { id: rows[0].id, organizationId: rows[0].organization_id } : null;
}

export async function touchKeyLastUsed(db: PoolWrite, keyId: string): Promise<void> {
  await db.query(
    `UPDATE personal_api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  );
}

export async function touchSession(db: PoolWrite, hash: string): Promise<void> {
  await db.query(
    `UPDATE sessions SET last_seen_at = now() WHERE id_hash = $1 AND last_seen_at < now() - interval '1 minute'`,
    [hash],
  );
}
