/**
 * Counts the statements (each a round trip) one flag create and one applied scheduled change send,
 * in-process on a fresh database: `npx tsx bench/statements.ts` (TEST_DATABASE_URL: the admin
 * connection). Prints each statement's first words so that the list can be read, not just counted.
 */
import pg from 'pg';
import { startTestApp } from '../test/helpers/app.ts';

const seen: string[] = [];
let counting = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text ?? '?';
  if (counting) seen.push(text.replace(/\s+/g, ' ').trim().slice(0, 90));
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

async function measured(label: string, work: () => Promise<void>): Promise<void> {
  seen.length = 0;
  counting = true;
  await work();
  counting = false;
  console.log(`${label}: ${seen.length} statements`);
  for (const text of seen) console.log(`  ${text}`);
}

const t = await startTestApp();
try {
  const flagsUrl = `/api/projects/${t.projectId}/feature_flags/`;
  const create = (key: string) => t.request({ method: 'POST', url: flagsUrl, payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });
  await create('warm-up');
  await measured('one create', async () => {
    const response = await create('counted');
    if (response.statusCode !== 201) throw new Error(response.body);
  });
  const flags: number[] = [];
  for (let i = 0; i < 25; i += 1) flags.push((await create(`scheduled-${i}`)).json().id as number);
  const due = new Date(Date.now() - 1000).toISOString();
  const schedule = (flagId: number, value: boolean) =>
    t.request({ method: 'POST', url: `/api/projects/${t.projectId}/scheduled_changes/`, payload: { record_id: String(flagId), model_name: 'FeatureFlag', payload: { operation: 'update_status', value }, scheduled_at: due } });
  for (const [n, id] of flags.entries()) await schedule(id, n % 2 === 1);
  await measured('25 scheduled changes (one batch)', async () => {
    await t.app.scheduledChanges.runOnce();
  });
} finally {
  await t.close();
}
