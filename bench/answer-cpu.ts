/**
 * The `/flags?v=2` answer's CPU alone, in this process: the `sdk` scenario's flags in a ProjectView
 * as the SDK cache keeps it, then for one person after another what the route does once the
 * person is loaded (the context, every flag evaluated, the detail map rendered to bytes). No HTTP,
 * no database. Timed with this process's CPU time (user + system).
 *
 *   npx tsx bench/answer-cpu.ts [flags=200] [answers=5000] [warm-up answers=1000]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/answer-cpu.ts 200
 *
 * Prints one JSON line; `answersFingerprint` (every answer's bytes for 500 people, the request's
 * own `requestId` and `evaluatedAt` left out) must not change with a change that keeps behaviour.
 */
import { createHash } from 'node:crypto';
import { loadContext } from '../src/sdk/context.ts';
import type { Pool } from '../src/db/pool.ts';
import type { FlagRecord } from '../src/flags/record.ts';
import { flagsJson } from '../src/sdk/responses.ts';
import { ProjectView } from '../src/sdk/project-view.ts';
import { people, posthogFilters, seedFlags, type Person } from './scenarios/sdk-flags.ts';

const flagCount = Number(process.argv[2] ?? 200);
const answers = Number(process.argv[3] ?? 5000);
const warmup = Number(process.argv[4] ?? 1000);

function recordOf(flag: ReturnType<typeof seedFlags>[number], id: number): FlagRecord {
  const record: Partial<FlagRecord> = {
    id,
    project_id: 1,
    key: flag.key,
    name: flag.name,
    filters: posthogFilters(flag) as FlagRecord['filters'],
    deleted: false,
    active: flag.active,
    version: 1,
    ensure_experience_continuity: false,
    evaluation_runtime: 'all',
    bucketing_identifier: null,
    evaluation_tags: [],
    owned_by_survey: false,
  };
  return record as FlagRecord;
}

const records = seedFlags(flagCount).map((flag, i) => recordOf(flag, flagCount - i));
const view = new ProjectView(1, records, { cohorts: new Map(), groupTypeMapping: {} });
const persons = people(2000);
/** The stored person, as the person cache hands it over (no database: the pool answers the row). */
const pool = {
  query: async (query: { values: unknown[] }) => {
    const person = persons[Number(String(query.values[1]).slice(5))];
    return { rows: [{ person_id: 1, properties: person.properties }] };
  },
} as unknown as Pool;

async function answer(person: Person): Promise<Buffer> {
  const { ctx } = await loadContext(pool, view, { distinctId: person.distinctId, groups: {}, personProperties: { ...person.properties } });
  const results = view.flagSet.evaluate(ctx);
  return flagsJson({ flags: view.flags.map((live, i) => ({ live, result: results[i] })), errors: false }, 2, false) as Buffer;
}

const digest = createHash('sha256');
for (const person of persons.slice(0, 500)) {
  const body = (await answer(person)).toString('utf8');
  digest.update(body.slice(0, body.lastIndexOf('},"errorsWhileComputingFlags"')));
}
for (let i = 0; i < warmup; i++) await answer(persons[i % persons.length]);
const before = process.cpuUsage();
let bytes = 0;
for (let i = 0; i < answers; i++) bytes += (await answer(persons[(warmup + i) % persons.length])).length;
const used = process.cpuUsage(before);
const cpuMs = (used.user + used.system) / 1000;
process.stdout.write(
  `${JSON.stringify({
    flags: view.flags.length,
    answers,
    bytesPerAnswer: Math.round(bytes / answers),
    cpuMs: Math.round(cpuMs),
    microsPerAnswer: Number(((cpuMs * 1000) / answers).toFixed(1)),
    microsPerFlag: Number(((cpuMs * 1000) / answers / view.flags.length).toFixed(3)),
    answersFingerprint: digest.digest('hex').slice(0, 16),
  })}\n`,
);
