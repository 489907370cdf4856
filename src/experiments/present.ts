/** An experiment as the API answers it (PostHog's experiment serializer; holdouts and saved metrics not served). */
import type { FlagRecord } from '../flags/record.ts';
import { isoUtc } from '../kernel/time.ts';
import { minimalFlag } from '../surveys/flags/present.ts';
import type { Actor } from './flag.ts';
import { statusOf, type ExperimentRecord } from './record.ts';

/** Reads a flag by id (the project's flag cache, or a record just written). */
export type FlagSource = (id: number) => FlagRecord | null;

function accessLevel(experiment: ExperimentRecord, viewer: Pick<Actor, 'organizationLevel'> & { userId: number }): 'manager' | 'editor' {
  if (viewer.organizationLevel === 'admin' || viewer.organizationLevel === 'owner') return 'manager';
  return experiment.created_by_id === viewer.userId ? 'manager' : 'editor';
}

export function presentExperiment(experiment: ExperimentRecord, flags: FlagSource, viewer: Pick<Actor, 'organizationLevel'> & { userId: number }) {
  const flag = flags(experiment.feature_flag_id);
  return {
    id: experiment.id,
    name: experiment.name,
    description: experiment.description,
    start_date: isoUtc(experiment.start_date),
    end_date: isoUtc(experiment.end_date),
    feature_flag_key: flag?.key ?? '',
    feature_flag: flag ? minimalFlag(flag) : null,
    holdout: null,
    holdout_id: null,
    exposure_cohort: null,
    parameters: experiment.parameters,
    secondary_metrics: experiment.secondary_metrics,
    saved_metrics: [],
    saved_metrics_ids: null,
    filters: experiment.filters,
    archived: experiment.archived,
    deleted: experiment.deleted,
    created_by: experiment.created_by,
    created_at: isoUtc(experiment.created_at),
    updated_at: isoUtc(experiment.updated_at),
    type: experiment.type,
    exposure_criteria: experiment.exposure_criteria,
    metrics: experiment.metrics,
    metrics_secondary: experiment.metrics_secondary,
    stats_config: experiment.stats_config,
    conclusion: experiment.conclusion,
    conclusion_comment: experiment.conclusion_comment,
    primary_metrics_ordered_uuids: experiment.primary_metrics_ordered_uuids,
    secondary_metrics_ordered_uuids: experiment.secondary_metrics_ordered_uuids,
    user_access_level: accessLevel(experiment, viewer),
    status: statusOf(experiment),
    scheduling_config: experiment.scheduling_config,
    only_count_matured_users: experiment.only_count_matured_users,
    excluded_variants: experiment.excluded_variants,
  };
}
