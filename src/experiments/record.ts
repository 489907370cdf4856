import type { UserSummary } from '../accounts/users/user-summary.ts';

export const EXPERIMENT_ACTIVITY_SCOPE = 'Experiment';

/** A metric as stored (PostHog's `ExperimentMetric`, plus any keys the client sent). */
export type StoredMetric = Record<string, unknown> & { uuid: string; metric_type: string; fingerprint?: string };

/** The columns a create or update writes. */
export interface ExperimentValues {
  name: string;
  description: string | null;
  start_date: Date | null;
  end_date: Date | null;
  feature_flag_id: number;
  parameters: Record<string, unknown>;
  filters: Record<string, unknown>;
  secondary_metrics: unknown[];
  archived: boolean;
  deleted: boolean;
  type: string;
  exposure_criteria: Record<string, unknown> | null;
  metrics: StoredMetric[];
  metrics_secondary: StoredMetric[];
  stats_config: Record<string, unknown> | null;
  conclusion: string | null;
  conclusion_comment: string | null;
  primary_metrics_ordered_uuids: string[] | null;
  secondary_metrics_ordered_uuids: string[] | null;
  scheduling_config: Record<string, unknown> | null;
  only_count_matured_users: boolean;
  excluded_variants: string[];
}

export const EXPERIMENT_VALUE_COLUMNS = [
  'name',
  'description',
  'start_date',
  'end_date',
  'feature_flag_id',
  'parameters',
  'filters',
  'secondary_metrics',
  'archived',
  'deleted',
  'type',
  'exposure_criteria',
  'metrics',
  'metrics_secondary',
  'stats_config',
  'conclusion',
  'conclusion_comment',
  'primary_metrics_ordered_uuids',
  'secondary_metrics_ordered_uuids',
  'scheduling_config',
  'only_count_matured_users',
  'excluded_variants',
] as const satisfies readonly (keyof ExperimentValues)[];

/** An experiment as the store reads it. */
export interface ExperimentRecord extends ExperimentValues {
  id: number;
  project_id: number;
  created_by_id: number | null;
  created_by: UserSummary | null;
  created_at: Date;
  updated_at: Date;
  state_generation: number;
}

export function experimentValuesOf(record: ExperimentRecord): ExperimentValues {
  const values = {} as Record<string, unknown>;
  for (const column of EXPERIMENT_VALUE_COLUMNS) values[column] = record[column];
  return values as unknown as ExperimentValues;
}

/** draft: not launched; running: launched, not ended; stopped: ended. */
export type ExperimentStatus = 'draft' | 'running' | 'stopped';

export function statusOf(experiment: Pick<ExperimentValues, 'start_date' | 'end_date'>): ExperimentStatus {
  if (experiment.start_date === null) return 'draft';
  return experiment.end_date === null ? 'running' : 'stopped';
}
