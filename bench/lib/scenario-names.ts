/** The scenarios `BENCH_SCENARIOS` chooses from, in the order they run. */
export const SCENARIO_NAMES = ['flags', 'ingestion', 'definitions', 'sdk', 'surveys', 'survey-responses', 'hostile-regex', 'flag-scale', 'console', 'workers', 'flag-cpu', 'three-process', 'webhooks', 'read-your-writes', 'experiments', 'hot', 'playground'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
