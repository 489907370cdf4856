/**
 * PostHog's flag lifecycle actions: enable, disable, archive, unarchive. Each changes only `active`
 * and `archived` through the one flag writer (its rules, activity entry and change notice), and a
 * flag already in the asked state comes back unchanged, with no write.
 */
import { validationError } from '../../kernel/errors.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { FlagViewer } from '../present.ts';
import type { FlagRecord } from '../record.ts';
import type { FlagWriteBody } from '../schemas.ts';
import { updateFlagById } from '../update.ts';
import type { FlagWriteDeps } from '../write-deps.ts';
import { flagById } from './read.ts';

export type LifecycleAction = 'enable' | 'disable' | 'archive' | 'unarchive';

const GERUND: Record<LifecycleAction, string> = { enable: 'enabling', disable: 'disabling', archive: 'archiving', unarchive: 'unarchiving' };

/** The fields the action writes, or null when the flag is already there. */
function changeFor(action: LifecycleAction, flag: FlagRecord): FlagWriteBody | null {
  switch (action) {
    case 'enable':
      return flag.active ? null : { active: true };
    case 'disable':
      return flag.active ? { active: false } : null;
    case 'archive':
      // An archived flag is always disabled: an enabled one is disabled in the same write.
      return flag.archived ? null : flag.active ? { archived: true, active: false } : { archived: true };
    case 'unarchive':
      // It stays disabled; enabling it is a separate call.
      return flag.archived ? { archived: false } : null;
  }
}

export interface LifecycleRequest {
  projectId: number;
  flagId: number;
  viewer: FlagViewer;
  actor: UserSummary;
}

/** The flag after the action (the cached record when nothing changed). */
export async function runLifecycleAction(deps: FlagWriteDeps, action: LifecycleAction, request: LifecycleRequest): Promise<FlagRecord> {
  const { record } = await flagById(deps.flagCache, request.projectId, request.flagId);
  if (record.deleted) throw validationError(`This feature flag has been deleted. Restore it before ${GERUND[action]} it.`);
  const change = changeFor(action, record);
  if (change === null) return record;
  return updateFlagById(deps, { ...request, body: change, ifMatch: null });
}
