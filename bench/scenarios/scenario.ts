import type { BenchConfig } from '../lib/config.ts';

/** The scenarios `BENCH_SCENARIOS` chooses from, in the order they run. */
export const SCENARIO_NAMES = ['flags', 'ingestion', 'definitions', 'sdk', 'surveys', 'survey-responses', 'hostile-regex', 'flag-scale', 'console', 'workers', 'flag-cpu', 'three-process', 'webhooks', 'read-your-writes', 'experiments', 'hot', 'playground'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** What a scenario hands back to run.ts: printed, then written to bench/results/. */
export interface ScenarioOutcome {
  /** The results file is bench/results/<file>-<YYYY-MM-DD-HHMM>[-<suffix>].json. */
  file: string;
  suffix?: string;
  /** The settings that shaped this scenario (kept in the JSON). */
  settings: Record<string, unknown>;
  /** Table, notes and aims, printed at the end of the run. */
  report: string;
  /** The scenario's own part of the JSON (targets, measurements, aims). */
  data: Record<string, unknown>;
}

export type Log = (line: string) => void;

export interface Scenario {
  name: ScenarioName;
  run(config: BenchConfig, log: Log): Promise<ScenarioOutcome>;
}
