import pg from 'pg';
import type { BenchConfig } from '../lib/config.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { Random } from '../lib/random.ts';
import { table } from '../lib/report.ts';
import { startBellwether } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';

const PROJECT = 1;
const DEFINITIONS = `/api/projects/${PROJECT}/event_definitions/`;
const PAGE = 100;
/** A word the taxonomic filter would be typed with; about 1 name in 40 holds it. */
const SEARCH = 'payment';

const POSTHOG_EVENTS = [
  '$pageview', '$pageleave', '$autocapture', '$identify', '$screen', '$feature_flag_called', '$exception',
  '$rageclick', '$web_vitals', '$groupidentify', '$create_alias', '$set', '$opt_in', 'survey shown',
  'survey sent', 'survey dismissed',
];
const AREAS = [
  'billing', 'onboarding', 'dashboard', 'search', 'checkout', 'settings', 'editor', 'mobile', 'admin', 'reports',
  'notifications', 'integrations', 'team', 'profile', 'catalog', 'support', 'api', 'marketing', 'insights', 'auth',
];
const OBJECTS = [
  'account', 'invoice', 'payment', 'subscription', 'plan', 'coupon', 'cart', 'order', 'product', 'item', 'wishlist',
  'review', 'comment', 'post', 'article', 'video', 'file', 'folder', 'document', 'template', 'report', 'chart',
  'dashboard', 'widget', 'filter', 'segment', 'cohort', 'experiment', 'flag', 'survey', 'form', 'field', 'user',
  'member', 'invite', 'role', 'permission', 'token', 'webhook', 'integration', 'notification', 'email', 'message',
  'thread', 'channel', 'workspace', 'project', 'task', 'ticket', 'page', 'button', 'modal', 'tooltip', 'banner',
  'tour', 'step', 'tutorial', 'export', 'import', 'payment method',
];
const VERBS = [
  'viewed', 'created', 'updated', 'deleted', 'clicked', 'opened', 'closed', 'shared', 'downloaded', 'uploaded',
  'submitted', 'started', 'completed', 'failed', 'cancelled', 'renewed', 'upgraded', 'downgraded', 'archived',
  'restored', 'duplicated', 'renamed', 'moved', 'searched', 'filtered', 'sorted', 'exported', 'imported',
  'dismissed', 'accepted',
];
const TAGS = ['marketing', 'product', 'growth', 'revenue', 'core', 'experimental'];

const title = (words: string) => words.replace(/\b\w/g, (c) => c.toUpperCase());
const camel = (words: string) => words.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());
const snake = (words: string) => words.replace(/ /g, '_');

interface SeedRow {
  name: string;
  created_at: string | null;
  last_seen_at: string | null;
  description: string | null;
  tags: string;
  verified: boolean;
  hidden: boolean;
}

/**
 * Names as products send them: PostHog's own `$…` events, then area × object × verb in the
 * spellings teams use ("invoice paid", "billing_invoice_paid", "Invoice Paid", "billing: invoice
 * paid", "invoicePaid"). last_seen_at mostly within the last 90 days (recent ones more often),
 * some older, some never (definitions created by hand); a few described, tagged, verified, hidden.
 */
export function definitionRows(count: number, seed = 11): SeedRow[] {
  const random = new Random(seed);
  const names = new Set<string>(POSTHOG_EVENTS.slice(0, Math.min(count, POSTHOG_EVENTS.length)));
  for (let guard = 0; names.size < count && guard < count * 50; guard += 1) {
    const words = `${random.pick(OBJECTS)} ${random.pick(VERBS)}`;
    const area = random.pick(AREAS);
    names.add(
      random.weighted<string>([
        [words, 35],
        [snake(`${area} ${words}`), 25],
        [title(words), 15],
        [`${area}: ${words}`, 15],
        [camel(`${area} ${words}`), 10],
      ]),
    );
  }
  if (names.size < count) throw new Error(`could only make ${names.size} distinct definition names`);
  const now = Date.now();
  const day = 86_400_000;
  return [...names].map((name) => {
    const roll = random.next();
    const lastSeen =
      roll < 0.85 ? now - random.next() ** 2 * 90 * day : roll < 0.95 ? now - (90 + random.next() * 640) * day : null;
    const created = lastSeen === null ? null : lastSeen - random.next() * 365 * day;
    return {
      name,
      created_at: created === null ? null : new Date(created).toISOString(),
      last_seen_at: lastSeen === null ? null : new Date(lastSeen).toISOString(),
      description: random.chance(0.05) ? `When the user ${name.replace(/[_:$]/g, ' ').trim()}` : null,
      tags: random.chance(0.03) ? `{${random.pick(TAGS)}}` : '{}',
      verified: random.chance(0.02),
      hidden: random.chance(0.01),
    };
  });
}

/** One INSERT … SELECT FROM json_to_recordset, then ANALYZE (this PostgreSQL runs without autovacuum). */
async function seedDefinitions(databaseUrl: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO event_definitions (project_id, name, created_at, last_seen_at, description, tags, verified, hidden)
       SELECT $1, r.name, r.created_at, r.last_seen_at, r.description, r.tags::text[], r.verified, r.hidden
         FROM json_to_recordset($2::json)
           AS r(name text, created_at timestamptz, last_seen_at timestamptz, description text, tags text, verified boolean, hidden boolean)`,
      [PROJECT, JSON.stringify(definitionRows(count))],
    );
    await client.query('ANALYZE event_definitions');
  } finally {
    await client.end();
  }
}

interface Page {
  count: number;
  results: Array<{ name: string }>;
}

const pageOf = (body: unknown): Page | null => {
  const page = body as Partial<Page> | null;
  return page && typeof page.count === 'number' && Array.isArray(page.results) ? (page as Page) : null;
};

function plans(seeded: number, matches: { search: number }): Record<'list' | 'search', OperationPlan> {
  return {
    list: {
      method: 'GET',
      next: () => ({ path: `${DEFINITIONS}?limit=${PAGE}` }),
      check: (body) => {
        const page = pageOf(body);
        if (!page) return 'the answer is not a page';
        if (page.results.length !== PAGE) return `the page holds ${page.results.length} definitions, expected ${PAGE}`;
        if (page.count !== seeded) return `count is ${page.count}, expected ${seeded}`;
        return null;
      },
    },
    search: {
      method: 'GET',
      next: () => ({ path: `${DEFINITIONS}?limit=${PAGE}&search=${encodeURIComponent(SEARCH)}` }),
      check: (body) => {
        const page = pageOf(body);
        if (!page) return 'the answer is not a page';
        if (page.count === 0) return `no definition matches "${SEARCH}"`;
        const stray = page.results.find((d) => !d.name.toLowerCase().includes(SEARCH));
        if (stray) return `"${stray.name}" does not match "${SEARCH}"`;
        matches.search = page.count;
        return null;
      },
    },
  };
}

export const eventDefinitionsScenario: Scenario = {
  name: 'definitions',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const seeded = config.seedDefinitions;
    log(
      `definitions: ${seeded} event definitions, ${settings.connections} connections, ` +
        `${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per query`,
    );
    const target = await startBellwether(config.adminDatabaseUrl);
    log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
    try {
      const started = performance.now();
      await seedDefinitions(target.databaseUrl, seeded);
      log(`${seeded} definitions inserted in ${Math.round(performance.now() - started)} ms`);
      const matches = { search: 0 };
      const operations = plans(seeded, matches);
      const results: Record<string, OperationResult> = {};
      for (const operation of ['list', 'search'] as const) {
        results[operation] = await runOperation(target, operations[operation], settings, operation, log);
      }
      await target.stop();
      log(`${target.name} stopped, its database dropped`);

      const queries = {
        list: `GET ${DEFINITIONS}?limit=${PAGE}`,
        search: `GET ${DEFINITIONS}?limit=${PAGE}&search=${SEARCH}`,
      };
      const rows = [['query', 'matches', 'req/s', 'p50 / p99', 'B/response', 'cores: bench · server · postgres · other']];
      for (const operation of ['list', 'search'] as const) {
        const r = results[operation];
        rows.push([
          queries[operation],
          operation === 'list' ? `${seeded}` : `${matches.search}`,
          `${Math.round(r.requestsPerSecond).toLocaleString('en-US')}${r.disturbed ? ' *' : ''}`,
          `${r.latencyMs.p50} / ${r.latencyMs.p99} ms`,
          `${r.bytesPerResponse}`,
          r.cpu
            ? `${r.cpu.benchPercent}% · ${r.cpu.serverPercent}% · ${Math.round((r.cpu.postgresPercent + r.cpu.postgresSharedPercent) * 10) / 10}% · ${r.cpu.foreignPercent}%`
            : '-',
        ]);
      }
      const disturbed = Object.values(results).some((r) => r.disturbed);
      const perRequest = (['list', 'search'] as const).map((operation) => {
        const r = results[operation];
        if (!r.cpu || r.totalRequests === 0) return `${operation}: cores not watched`;
        const coreMs = (percent: number) => ((percent / 100) * r.cpu!.cores * r.cpu!.seconds * 1000) / r.totalRequests;
        return (
          `${operation}: per request server ${coreMs(r.cpu.serverPercent).toFixed(2)} core-ms, ` +
          `PostgreSQL ${coreMs(r.cpu.postgresPercent + r.cpu.postgresSharedPercent).toFixed(2)} core-ms ` +
          `(machine ${r.cpu.machinePercent}% busy)`
        );
      });
      const report =
        `Event definitions (${seeded} seeded, ${settings.connections} connections, autocannon; no peer)\n${table(rows)}\n` +
        `Default order: last_seen_at::date DESC NULLS LAST, name. Cores in % of the machine's ${results.list.cpu?.cores ?? '?'}.\n` +
        `Where the cores go: ${perRequest.join('; ')}.\n` +
        (disturbed ? '* disturbed: other work used more than the allowed share of the cores even after retries.\n' : '');
      return {
        file: 'event-definitions',
        settings: { ...settings, seedDefinitions: seeded, pageSize: PAGE, search: SEARCH },
        report,
        data: { target: { notes: target.notes }, queries, matches: { list: seeded, search: matches.search }, results },
      };
    } finally {
      await target.stop();
    }
  },
};
