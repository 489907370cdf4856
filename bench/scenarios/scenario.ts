import type { BenchConfig } from '../lib/config.ts';
import type { ScenarioName } from '../lib/scenario-names.ts';

export { SCENARIO_NAMES, type ScenarioName } from '../lib/scenario-names.ts';

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
