import type { Pool } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { requiredField } from '../platform/errors.ts';
import { checkDashboards } from './dashboards.ts';
import { recordFlagActivity } from './activity.ts';
import { isUniqueViolation, keyTaken } from './errors.ts';
import { overridesFirst } from './derive.ts';
import { flagLookup } from './lookup.ts';
import type { FlagRecord } from './record.ts';
import type { FlagWriteBody } from './schemas.ts';
import { findFlag, insertFlag, insertUsageDashboard, linkDashboards, liveKeyTaken } from './store.ts';
import { validateFilters, validateKeyFormat } from './validation/index.ts';
import { applyPlainFields, newFlagValues } from './write-fields.ts';

export async function createFlag(pool: Pool, projectId: number, userId: number, body: FlagWriteBody): Promise<FlagRecord> {
  if (body.key === undefined) throw requiredField('key');
  // Uniqueness is reported before format, as PostHog does.
  if (await liveKeyTaken(pool, projectId, body.key, null)) throw keyTaken();
  const key = validateKeyFormat(body.key);
  const values = applyPlainFields(newFlagValues(key, new Date()), body);
  if (body.filters !== undefined) {
    values.filters = overridesFirst(await validateFilters(body.filters, {
      isCreate: true,
      flagId: null,
      flagKey: key,
      lookup: flagLookup(pool, projectId),
    }));
  }
  const dashboards = await checkDashboards(pool, projectId, body.analytics_dashboards);

  try {
    return await withTransaction(pool, async (client) => {
      const usageDashboard = values.should_create_usage_dashboard ? await insertUsageDashboard(client, projectId, key, userId) : null;
      const id = await insertFlag(client, projectId, userId, values, usageDashboard);
      await linkDashboards(client, id, dashboards);
      const flag = (await findFlag(client, projectId, id))!;
      await recordFlagActivity(client, null, flag, userId);
      return flag;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw keyTaken();
    throw error;
  }
}
