/**
 * Write-then-read checks over HTTP against real processes: each request on a connection of its own
 * (no keep-alive), so that a cluster's workers and a load balancer's nodes take turns as they would
 * for separate clients. A read that does not show a write acknowledged before it was sent is stale.
 */
import http from 'node:http';

export interface Answer {
  status: number;
  body: any;
}

/** One request on a new connection. */
export function send(base: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          connection: 'close',
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = text === '' ? null : JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** Stale reads per check, and how many of each check ran. */
export class Tally {
  readonly checks = new Map<string, { ran: number; stale: number; examples: string[] }>();

  /** Counts one check; `fresh` false is a stale read (the first few are kept to show). */
  record(check: string, fresh: boolean, detail: () => string): void {
    const entry = this.checks.get(check) ?? { ran: 0, stale: 0, examples: [] };
    entry.ran++;
    if (!fresh) {
      entry.stale++;
      if (entry.examples.length < 3) entry.examples.push(detail());
    }
    this.checks.set(check, entry);
  }

  get total(): number {
    return [...this.checks.values()].reduce((sum, entry) => sum + entry.ran, 0);
  }

  get stale(): number {
    return [...this.checks.values()].reduce((sum, entry) => sum + entry.stale, 0);
  }

  report(): string {
    return [...this.checks].map(([check, { ran, stale, examples }]) => `${check}: ${stale}/${ran} stale${examples.length ? ` (${examples.join('; ')})` : ''}`).join('\n');
  }
}

/** Runs `round(0…count-1)` with `concurrency` rounds under way at once. */
export async function inParallel(count: number, concurrency: number, round: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await round(next++);
    }),
  );
}

/** Where a round writes and where it reads back: the same or different processes. */
export interface Route {
  writer: string;
  reader: string;
}

const project = '/api/projects/1';

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** create → retrieve, create → list, rename → retrieve, soft-delete → re-create the key: 4 checks. */
export async function flagRound(key: string, route: Route, name: string, tally: Tally): Promise<void> {
  const { writer, reader } = route;
  const created = await send(writer, key, 'POST', `${project}/feature_flags/`, { key: name, name: 'before' });
  expectStatus(created, 201, 'flag create');
  const id = created.body.id as number;
  const retrieved = await send(reader, key, 'GET', `${project}/feature_flags/${id}/`);
  tally.record('flag create→retrieve', retrieved.status === 200, () => `${retrieved.status}`);
  const listed = await send(reader, key, 'GET', `${project}/feature_flags/?search=${name}`);
  tally.record('flag create→list', listed.status === 200 && listed.body.count === 1, () => `${listed.status} count ${listed.body?.count}`);
  expectStatus(await send(writer, key, 'PATCH', `${project}/feature_flags/${id}/`, { name: 'after' }), 200, 'flag rename');
  const renamed = await send(reader, key, 'GET', `${project}/feature_flags/${id}/`);
  tally.record('flag rename→retrieve', renamed.status === 200 && renamed.body.name === 'after', () => `${renamed.status} ${renamed.body?.name}`);
  expectStatus(await send(writer, key, 'PATCH', `${project}/feature_flags/${id}/`, { deleted: true }), 200, 'flag soft-delete');
  const again = await send(reader, key, 'POST', `${project}/feature_flags/`, { key: name });
  tally.record('flag soft-delete→re-create key', again.status === 201, () => `${again.status} ${JSON.stringify(again.body?.detail)}`);
}

/** create → retrieve, create → list, rename → retrieve, delete → re-create the name: 4 checks. */
export async function surveyRound(key: string, route: Route, name: string, tally: Tally): Promise<void> {
  const { writer, reader } = route;
  const body = { name, type: 'popover', questions: [{ type: 'open', question: 'Why?' }] };
  const created = await send(writer, key, 'POST', `${project}/surveys/`, body);
  expectStatus(created, 201, 'survey create');
  const id = created.body.id as string;
  const retrieved = await send(reader, key, 'GET', `${project}/surveys/${id}/`);
  tally.record('survey create→retrieve', retrieved.status === 200, () => `${retrieved.status}`);
  const listed = await send(reader, key, 'GET', `${project}/surveys/?search=${name}`);
  tally.record('survey create→list', listed.status === 200 && listed.body.count === 1, () => `${listed.status} count ${listed.body?.count}`);
  expectStatus(await send(writer, key, 'PATCH', `${project}/surveys/${id}/`, { description: 'after' }), 200, 'survey change');
  const changed = await send(reader, key, 'GET', `${project}/surveys/${id}/`);
  tally.record('survey change→retrieve', changed.status === 200 && changed.body.description === 'after', () => `${changed.status} ${changed.body?.description}`);
  expectStatus(await send(writer, key, 'DELETE', `${project}/surveys/${id}/`), 204, 'survey delete');
  const again = await send(reader, key, 'POST', `${project}/surveys/`, body);
  tally.record('survey delete→re-create name', again.status === 201, () => `${again.status} ${JSON.stringify(again.body?.detail)}`);
}

/** create → retrieve, create → list, rename → retrieve, soft-delete → list: 4 checks. */
export async function cohortRound(key: string, route: Route, name: string, tally: Tally): Promise<void> {
  const { writer, reader } = route;
  const filters = { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } };
  const created = await send(writer, key, 'POST', `${project}/cohorts/`, { name, filters });
  expectStatus(created, 201, 'cohort create');
  const id = created.body.id as number;
  const retrieved = await send(reader, key, 'GET', `${project}/cohorts/${id}/`);
  tally.record('cohort create→retrieve', retrieved.status === 200, () => `${retrieved.status}`);
  const listed = await send(reader, key, 'GET', `${project}/cohorts/?search=${name}`);
  tally.record('cohort create→list', listed.status === 200 && listed.body.count === 1, () => `${listed.status} count ${listed.body?.count}`);
  expectStatus(await send(writer, key, 'PATCH', `${project}/cohorts/${id}/`, { name: `${name}-renamed` }), 200, 'cohort rename');
  const renamed = await send(reader, key, 'GET', `${project}/cohorts/${id}/`);
  tally.record('cohort rename→retrieve', renamed.status === 200 && renamed.body.name === `${name}-renamed`, () => `${renamed.status} ${renamed.body?.name}`);
  expectStatus(await send(writer, key, 'PATCH', `${project}/cohorts/${id}/`, { deleted: true }), 200, 'cohort soft-delete');
  const gone = await send(reader, key, 'GET', `${project}/cohorts/?search=${name}`);
  tally.record('cohort soft-delete→list', gone.status === 200 && gone.body.count === 0, () => `${gone.status} count ${gone.body?.count}`);
}

/** Rounds per kind: each round makes 4 checks, one per write-then-read kind. */
export const FLAG_ROUNDS = 200;
export const OTHER_ROUNDS = 100;
/** Rounds under way at once: the processes serve concurrent writes and reads, as under load. */
const CONCURRENCY = 8;

/** Flag, survey and cohort rounds routed by `routeOf`; the tally of what was read back. */
export async function readAfterWriteRun(key: string, label: string, routeOf: (i: number) => Route): Promise<Tally> {
  const tally = new Tally();
  const started = Date.now();
  await inParallel(FLAG_ROUNDS, CONCURRENCY, (i) => flagRound(key, routeOf(i), `${label}-flag-${i}`, tally));
  await inParallel(OTHER_ROUNDS, CONCURRENCY, (i) => surveyRound(key, routeOf(i), `${label}-survey-${i}`, tally));
  await inParallel(OTHER_ROUNDS, CONCURRENCY, (i) => cohortRound(key, routeOf(i), `${label}-cohort-${i}`, tally));
  console.log(`# ${label}: ${tally.total} checks, ${tally.stale} stale, ${Date.now() - started} ms\n# ${tally.report().replaceAll('\n', '\n# ')}`);
  return tally;
}
