import type { AccountsDeps } from '../deps.ts';
import { currentProjectId } from '../auth/hook.ts';
import { principalCanReach, type Principal } from '../auth/principal.ts';
import { orNotFound } from '../../kernel/errors.ts';
import { MAX_LIMIT } from '../../kernel/http/pagination.ts';
import { currentOrganizationId, keyReach, keyReachesOrganization } from '../organizations/reach.ts';
import type { Organization, TeamBasic } from '../organizations/schemas.ts';
import { organizationBody, toOrganizationSummary, toTeamBasic } from '../organizations/service.ts';
import { listReachableOrganizations } from '../organizations/store.ts';
import { findProject } from '../projects/store.ts';
import type { Me } from './schemas.ts';
import { findUser } from './store.ts';
import { toUserSummary } from './user-summary.ts';

async function currentTeam(deps: AccountsDeps, principal: Principal): Promise<TeamBasic | null> {
  const id = currentProjectId(principal);
  const ref = id === null ? null : await deps.authenticator.project(id);
  if (!ref || !principalCanReach(principal, ref)) return null;
  const project = await findProject(deps.pool, ref.id);
  return project ? toTeamBasic(project) : null;
}

async function currentOrganization(deps: AccountsDeps, principal: Principal): Promise<Organization | null> {
  const id = await currentOrganizationId(principal, deps.authenticator);
  if (id === null || !(await keyReachesOrganization(principal, id, deps.authenticator))) return null;
  return organizationBody(deps, principal, id);
}

export async function me(deps: AccountsDeps, principal: Principal): Promise<Me> {
  const user = orNotFound(await findUser(deps.pool, principal.user.id));
  const [organization, team, organizations] = await Promise.all([
    currentOrganization(deps, principal),
    currentTeam(deps, principal),
    listReachableOrganizations(deps.pool, keyReach(principal), { limit: MAX_LIMIT, offset: 0 }),
  ]);
  return {
    ...toUserSummary(user),
    date_joined: user.created_at.toISOString(),
    has_password: user.password_hash !== null,
    organization,
    team,
    organizations: organizations.rows.map(toOrganizationSummary),
  };
}
