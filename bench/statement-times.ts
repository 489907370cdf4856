/**
 * The round-trip time of each statement one flag create sends, measured on the client over many
 * sequential creates, in-process on a fresh database: `npx tsx bench/statement-times.ts [creates]`
 * (TEST_DATABASE_URL: the admin connection). On a quiet machine a statement's round trip is
 * PostgreSQL's time for it plus the socket's; the list says where a create spends its database time.
 */
import pg from 'pg';
import { startTestApp } from '../test/helpers/app.ts';
import { median } from './lib/median.ts';

const creates = Number(process.argv[2] ?? 500);
const times = new Map<string, number[]>();
let counting = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function timed(this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text ?? '?';
  const result = query.apply(this, args);
  if (!counting || !(result instanceof Promise)) return result;
  const label = text.replace(/\s+/g, ' ').trim().slice(0, 70);
  const started = performance.now();
  return result.then((value: unknown) => {
    const list = times.get(label) ?? [];
    list.push(performance.now() - started);
    times.set(label, list);
    return value;
  });
} as typeof pg.Client.prototype.query;

const t = await startTestApp();
try {
  const flagsUrl = `/api/projects/${t.projectId}/feature_flags/`;
  const create = (key: string) => t.request({ method: 'POST', url: flagsUrl, payload: { key, name: `Flag ${key}`, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });
  for (let i = 0; i < 200; i += 1) await create(`warm-${i}`);
  counting = true;
  const started = performance.now();
  for (let i = 0; i < creates; i += 1) {
    const response = await create(`timed-${i}`);
    if (response.statusCode !== 201) throw new Error(response.body);
  }
  const total = performance.now() - started;
  counting = false;
  console.log(`${creates} creates, ${(total / creates).toFixed(3)} ms each (in-process, no HTTP socket)`);
  for (const [label, list] of times) {
    console.log(`  ${median(list).toFixed(3)} ms median, ${(list.reduce((a, b) => a + b, 0) / list.length).toFixed(3)} mean, ×${list.length}  ${label}`);
  }
} finally {
  await t.close();
}
