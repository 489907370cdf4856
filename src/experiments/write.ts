/** Create and update (PATCH/PUT) of experiments: PostHog's rules, all or nothing. */
import { notFound, orNotFound, requiredField, validationError } from '../kernel/errors.ts';
import type { FlagRecord } from '../flags/record.ts';
import { findFlag } from '../flags/store.ts';
import type { ExperimentDeps } from './deps.ts';
import { checkExposureCriteria } from './exposure/criteria.ts';
import { checkedMetrics, flagIneligibility, statsConfigOf, syncOrdering, variantsOf, type Variant } from './fields.ts';
import { createExperimentFlag, draftFlagFilters, liveFlagByKey, writeExperimentFlag, type Actor } from './flag.ts';
import { experimentValuesOf, type ExperimentRecord, type ExperimentValues } from './record.ts';
import type { ExperimentWriteBody } from './schemas.ts';
import { insertNewExperiment, saveExperiment } from './save.ts';
import { findExperiment } from './store.ts';

export interface Written {
  experiment: ExperimentRecord;
  flag: FlagRecord;
}

type Json = Record<string, unknown>;

function checkDates(start: Date | null, end: Date | null): void {
  if (start !== null && end !== null && start >= end) throw validationError('End date must be after start date', null);
}

function checkUnserved(body: ExperimentWriteBody): void {
  const properties = (body.filters as Json | null | undefined)?.properties;
  if (Array.isArray(properties) && properties.length > 0) throw validationError('Experiments do not support global filter properties', 'filters');
  if (body.holdout_id !== undefined && body.holdout_id !== null) {
    throw validationError(`Invalid pk "${body.holdout_id}" - object does not exist.`, 'holdout_id', 'does_not_exist');
  }
  const saved = body.saved_metrics_ids;
  if (saved !== undefined && saved !== null) {
    if (!Array.isArray(saved)) throw validationError('Saved metrics must be a list', 'saved_metrics_ids');
    if (saved.length > 0) throw validationError('Saved metric does not exist or does not belong to this project', 'saved_metrics_ids');
  }
}

const date = (value: string | null | undefined, current: Date | null) => (value === undefined ? current : value === null ? null : new Date(value));

function aggregationIndexOf(parameters: Json): number | null {
  const index = parameters.aggregation_group_type_index;
  return typeof index === 'number' && Number.isInteger(index) ? index : null;
}

export async function createExperiment(deps: ExperimentDeps, projectId: number, actor: Actor, body: ExperimentWriteBody): Promise<Written> {
  if (body.name === undefined) throw requiredField('name');
  if (body.feature_flag_key === undefined) throw requiredField('feature_flag_key');
  const parameters = (body.parameters ?? {}) as Json;
  const variants = variantsOf(parameters);
  checkUnserved(body);
  const start = date(body.start_date, null);
  const end = date(body.end_date, null);
  checkDates(start, end);
  const metrics = checkedMetrics(body.metrics, 'metrics');
  const metricsSecondary = checkedMetrics(body.metrics_secondary, 'metrics_secondary');
  const values: Omit<ExperimentValues, 'feature_flag_id'> = {
    name: body.name,
    description: body.description ?? null,
    start_date: start,
    end_date: end,
    parameters,
    filters: (body.filters ?? {}) as Json,
    secondary_metrics: body.secondary_metrics ?? [],
    archived: body.archived ?? false,
    deleted: false,
    type: body.type ?? 'product',
    exposure_criteria: checkExposureCriteria(body.exposure_criteria),
    metrics,
    metrics_secondary: metricsSecondary,
    stats_config: statsConfigOf(body.stats_config as Json | null | undefined, true),
    conclusion: body.conclusion ?? null,
    conclusion_comment: body.conclusion_comment ?? null,
    primary_metrics_ordered_uuids: syncOrdering(body.primary_metrics_ordered_uuids, null, [], metrics, 'primary'),
    secondary_metrics_ordered_uuids: syncOrdering(body.secondary_metrics_ordered_uuids, null, [], metricsSecondary, 'secondary'),
    scheduling_config: (body.scheduling_config ?? null) as Json | null,
    only_count_matured_users: body.only_count_matured_users ?? false,
    excluded_variants: body.excluded_variants ?? [],
  };
  const key = body.feature_flag_key;
  return deps.units.run(
    async (unit) => {
      let flag = await liveFlagByKey(unit, projectId, key);
      if (flag) {
        const why = flagIneligibility(flag.filters);
        if (why) throw validationError(why, null);
      } else {
        flag = await createExperimentFlag(deps, unit, projectId, actor, {
          key,
          experimentName: values.name,
          variants,
          aggregationGroupTypeIndex: aggregationIndexOf(parameters),
          active: start !== null,
          ...(typeof parameters.ensure_experience_continuity === 'boolean' ? { ensureExperienceContinuity: parameters.ensure_experience_continuity } : {}),
        });
      }
      const experiment = await insertNewExperiment(deps, unit, projectId, actor.user.id, { ...values, feature_flag_id: flag.id });
      return { experiment, flag };
    },
    { retry: true },
  );
}

/** The keys PATCH and PUT accept (PostHog's list); `type` and a different flag key are refused by name. */
function refusedKeys(body: ExperimentWriteBody, before: ExperimentRecord, flag: FlagRecord): string[] {
  const refused: string[] = [];
  if (body.type !== undefined && body.type !== before.type) refused.push('type');
  if (body.feature_flag_key !== undefined && body.feature_flag_key !== flag.key) refused.push('feature_flag_key');
  return refused.sort();
}

function variantKeys(variants: Variant[] | unknown): string[] {
  return Array.isArray(variants) ? variants.map((variant) => (variant as Variant)?.key) : [];
}

export interface UpdateRequest {
  projectId: number;
  id: number;
  actor: Actor;
  body: ExperimentWriteBody;
}

export async function updateExperimentById(deps: ExperimentDeps, request: UpdateRequest): Promise<Written> {
  const { projectId, id, actor, body } = request;
  return deps.units.run(
    async (unit) => {
      const before = orNotFound(await findExperiment(unit.client, projectId, id, { lock: true, includeDeleted: body.deleted === false }));
      let flag = await findFlag(unit.client, projectId, before.feature_flag_id, true);
      if (!flag) throw notFound();
      const refused = refusedKeys(body, before, flag);
      if (refused.length > 0) throw validationError(`Can't update keys: ${refused.join(', ')} on Experiment`, null);
      checkUnserved(body);

      const next = experimentValuesOf(before);
      const launched = before.start_date !== null;
      let flagVariantsChanged = false;
      if (body.name !== undefined) next.name = body.name;
      if (body.description !== undefined) next.description = body.description;
      next.start_date = date(body.start_date, next.start_date);
      next.end_date = date(body.end_date, next.end_date);
      checkDates(next.start_date, next.end_date);
      if (body.parameters !== undefined) {
        const parameters = (body.parameters ?? {}) as Json;
        const variants = variantsOf(parameters);
        if (launched) {
          const stored = variantKeys(before.parameters.feature_flag_variants);
          const sent = variantKeys(parameters.feature_flag_variants);
          if (parameters.feature_flag_variants !== undefined && (sent.length !== stored.length || sent.some((k, i) => k !== stored[i]))) {
            throw validationError("Can't update feature_flag_variants on Experiment", null);
          }
        } else {
          const filters = draftFlagFilters(flag.filters, variants, aggregationIndexOf(parameters));
          flagVariantsChanged = true;
          flag = await writeExperimentFlag(deps, unit, projectId, flag.id, actor, { filters });
        }
        next.parameters = parameters;
      }
      if (body.filters !== undefined) next.filters = (body.filters ?? {}) as Json;
      if (body.secondary_metrics !== undefined) next.secondary_metrics = body.secondary_metrics ?? [];
      if (body.archived !== undefined) next.archived = body.archived;
      if (body.deleted !== undefined) next.deleted = body.deleted;
      if (body.exposure_criteria !== undefined) next.exposure_criteria = checkExposureCriteria(body.exposure_criteria);
      if (body.metrics !== undefined) next.metrics = checkedMetrics(body.metrics, 'metrics');
      if (body.metrics_secondary !== undefined) next.metrics_secondary = checkedMetrics(body.metrics_secondary, 'metrics_secondary');
      next.primary_metrics_ordered_uuids = syncOrdering(body.primary_metrics_ordered_uuids, before.primary_metrics_ordered_uuids, before.metrics, next.metrics, 'primary');
      next.secondary_metrics_ordered_uuids = syncOrdering(
        body.secondary_metrics_ordered_uuids,
        before.secondary_metrics_ordered_uuids,
        before.metrics_secondary,
        next.metrics_secondary,
        'secondary',
      );
      if (body.stats_config !== undefined) next.stats_config = statsConfigOf(body.stats_config as Json | null, false);
      if (body.conclusion !== undefined) next.conclusion = body.conclusion;
      if (body.conclusion_comment !== undefined) next.conclusion_comment = body.conclusion_comment;
      if (body.scheduling_config !== undefined) next.scheduling_config = (body.scheduling_config ?? null) as Json | null;
      if (body.only_count_matured_users !== undefined) next.only_count_matured_users = body.only_count_matured_users;
      if (body.excluded_variants !== undefined) next.excluded_variants = body.excluded_variants ?? [];

      // Launching by date (the older clients' way): the flag is switched on.
      if (!launched && next.start_date !== null && !flag.active) {
        const why = flagIneligibility(flag.filters);
        if (why) throw validationError(why, null);
        flag = await writeExperimentFlag(deps, unit, projectId, flag.id, actor, { active: true });
      }
      const experiment = await saveExperiment(deps, unit, before, next, actor.user.id, flagVariantsChanged);
      return { experiment, flag };
    },
    { retry: true },
  );
}
