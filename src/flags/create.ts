import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ApiError, requiredField } from '../kernel/errors.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { usageInsights } from './actions/usage-dashboard.ts';
import { checkDashboards } from './dashboards.ts';
import { overridesFirst } from './derive.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { keyTaken } from './errors.ts';
import { ensureRoomForFlag } from './limit.ts';
import { flagLookup } from './lookup.ts';
import type { FlagRecord } from './record.ts';
import type { FlagWriteBody } from './schemas.ts';
import { insertFlag, linkDashboards, liveKeyTaken } from './store.ts';
import { validateFilters, validateKeyFormat } from './validation/index.ts';
import type { FlagWriteDeps } from './write-deps.ts';
import { applyPlainFields, newFlagValues } from './write-fields.ts';
import { commitFlagWrite } from './writer.ts';

/** `within`: a unit already open that this create joins (its filters are then checked inside it too). */
export async function createFlag(
  deps: FlagWriteDeps,
  projectId: number,
  actor: UserSummary,
  body: FlagWriteBody,
  within?: UnitOfWork,
): Promise<FlagRecord> {
  if (body.key === undefined) throw requiredField('key');
  const key = body.key;
  const db = within?.client ?? deps.pool;
  try {
    return await insertNewFlag(deps, projectId, actor, key, body, within);
  } catch (error) {
    // The partial unique index on live keys decides a taken key (a flag soft-deleted or created a
    // moment ago by another process counts as it is), so the common create spends no read on it.
    if (isUniqueViolation(error)) throw keyTaken();
    // PostHog reports a taken key before any other fault of the request: look only when there is one.
    if (error instanceof ApiError && error.status === 400 && (await liveKeyTaken(db, projectId, key, null))) throw keyTaken();
    throw error;
  }
}

async function insertNewFlag(
  deps: FlagWriteDeps,
  projectId: number,
  actor: UserSummary,
  rawKey: string,
  body: FlagWriteBody,
  within: UnitOfWork | undefined,
): Promise<FlagRecord> {
  const key = validateKeyFormat(rawKey);
  const values = applyPlainFields(newFlagValues(key, new Date()), body);
  if (body.filters !== undefined) {
    values.filters = overridesFirst(
      await validateFilters(body.filters, { isCreate: true, flagId: null, flagKey: key, lookup: flagLookup(within?.client ?? deps.pool, projectId) }),
    );
  }
  const dashboards = await checkDashboards(deps.pool, projectId, body.analytics_dashboards);
  return deps.units.run(async (unit) => {
    const { client } = unit;
    await ensureRoomForFlag(client, projectId);
    const insights = values.should_create_usage_dashboard ? usageInsights(key) : null;
    const row = await insertFlag(client, projectId, actor.id, values, insights);
    await linkDashboards(client, row.id, dashboards);
    const record: FlagRecord = { ...row, created_by: actor, last_modified_by: actor, analytics_dashboards: dashboards };
    await commitFlagWrite(deps, unit, { before: null, after: record, actorId: actor.id, stamped: true });
    return record;
  }, { retry: true, within });
}
