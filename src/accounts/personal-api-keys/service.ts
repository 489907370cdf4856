import type { AccountsDeps } from '../deps.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../auth/keys.ts';
import { membershipLevel, type Principal } from '../auth/principal.ts';
import { isValidScope, scopesGrant, type Scope } from '../auth/scopes.ts';
import { notFound, orNotFound, permissionDenied, validationError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { keyReach } from '../organizations/reach.ts';
import { cleanName, isUuid } from '../organizations/service.ts';
import type { CreatedPersonalApiKey, CreatePersonalApiKeyBody, PersonalApiKey } from './schemas.ts';
import { deleteKeyOfUser, findKeyOfUser, insertPersonalApiKey, listKeysOfUser, type PersonalApiKeyRow } from './store.ts';

const LABEL_MAX_LENGTH = 40;

function toPersonalApiKey(row: PersonalApiKeyRow): PersonalApiKey {
  return {
    id: row.id,
    label: row.label,
    mask_value: row.mask_value,
    scopes: row.scopes,
    // Stored as null when the key is not narrowed; shown as an empty list, as PostHog's clients expect.
    scoped_teams: row.scoped_teams ?? [],
    scoped_organizations: row.scoped_organizations ?? [],
    user_id: row.user_id,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    last_rolled_at: row.last_rolled_at?.toISOString() ?? null,
  };
}

export async function listPersonalApiKeys(deps: AccountsDeps, principal: Principal, page: Page) {
  const { count, rows } = await listKeysOfUser(deps.pool, principal.user.id, page);
  return { count, results: rows.map(toPersonalApiKey) };
}

export async function getPersonalApiKey(deps: AccountsDeps, principal: Principal, id: string): Promise<PersonalApiKey> {
  return toPersonalApiKey(orNotFound(isUuid(id) ? await findKeyOfUser(deps.pool, principal.user.id, id.toLowerCase()) : null));
}

/** The key the request came with; a console session has none. */
export async function currentPersonalApiKey(deps: AccountsDeps, principal: Principal): Promise<PersonalApiKey> {
  if (principal.kind !== 'personal_api_key') throw notFound();
  return toPersonalApiKey(orNotFound(await findKeyOfUser(deps.pool, principal.user.id, principal.keyId)));
}

function cleanScopes(scopes: string[]): string[] {
  if (scopes.length === 0) throw validationError('At least one scope is required.', 'scopes', 'required');
  for (const scope of scopes) {
    if (!isValidScope(scope)) throw validationError(`Invalid scope: ${scope}`, 'scopes', 'invalid_input');
  }
  return [...new Set(scopes)];
}

/** Projects must exist in one of the user's organizations. */
async function cleanScopedTeams(deps: AccountsDeps, principal: Principal, teams: number[] | null | undefined): Promise<number[] | null> {
  if (!teams || teams.length === 0) return null;
  const unique = [...new Set(teams)];
  for (const id of unique) {
    const project = await deps.authenticator.project(id);
    if (!project || membershipLevel(principal, project.organizationId) === null) {
      throw validationError('You must be a member of all teams that you are scoping the key to.', 'scoped_teams', 'invalid_input');
    }
  }
  return unique;
}

/** Organizations must be ones the user belongs to. */
function cleanScopedOrganizations(principal: Principal, organizations: string[] | null | undefined): string[] | null {
  if (!organizations || organizations.length === 0) return null;
  const unique = [...new Set(organizations.map((id) => id.toLowerCase()))];
  for (const id of unique) {
    if (membershipLevel(principal, id) === null) {
      throw validationError(
        'You must be a member of all organizations that you are scoping the key to.',
        'scoped_organizations',
        'invalid_input',
      );
    }
  }
  return unique;
}

/**
 * A key may not mint a broader key than itself: every scope must be one the caller holds, and a
 * caller limited to projects or organizations must limit the new key to (a part of) the same.
 */
async function ensureNoBroaderThanCaller(
  deps: AccountsDeps,
  principal: Principal,
  key: { scopes: string[]; teams: number[] | null; organizations: string[] | null },
): Promise<void> {
  for (const scope of key.scopes) {
    const granted = scope === '*' ? principal.scopes.has('*') : scopesGrant(principal.scopes, scope as Scope);
    if (!granted) throw permissionDenied(`API key missing required scope '${scope}'`);
  }
  const caller = keyReach(principal);
  const narrower = permissionDenied('A new key cannot reach projects or organizations that this API key cannot.');
  if (caller.teams) {
    if (!key.teams || !key.teams.every((id) => caller.teams!.includes(id))) throw narrower;
  }
  if (caller.organizations) {
    const allowed = caller.organizations;
    if (key.organizations) {
      if (!key.organizations.every((id) => allowed.includes(id))) throw narrower;
    } else if (key.teams) {
      for (const id of key.teams) {
        const project = await deps.authenticator.project(id);
        if (!project || !allowed.includes(project.organizationId)) throw narrower;
      }
    } else {
      throw narrower;
    }
  }
}

export async function createPersonalApiKey(
  deps: AccountsDeps,
  principal: Principal,
  body: CreatePersonalApiKeyBody,
): Promise<CreatedPersonalApiKey> {
  const label = cleanName(body.label, 'label', LABEL_MAX_LENGTH);
  const scopes = cleanScopes(body.scopes);
  const teams = await cleanScopedTeams(deps, principal, body.scoped_teams);
  const organizations = cleanScopedOrganizations(principal, body.scoped_organizations);
  await ensureNoBroaderThanCaller(deps, principal, { scopes, teams, organizations });

  const value = generateSecret(PERSONAL_KEY_PREFIX);
  const row = await deps.units.run(({ client }) =>
    insertPersonalApiKey(client, {
      userId: principal.user.id,
      label,
      value,
      scopes,
      scopedTeams: teams,
      scopedOrganizations: organizations,
    }),
  );
  return { ...toPersonalApiKey(row), value };
}

/** The key stops working at once, here and (by change notice) in every other process. */
export async function deletePersonalApiKey(deps: AccountsDeps, principal: Principal, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  await deps.units.run(async (unit) => {
    if (!(await deleteKeyOfUser(unit.client, principal.user.id, id.toLowerCase()))) throw notFound();
    await deps.bus.publish(unit, { kind: 'auth' });
  });
}
