/** duplicate: a draft copy named "<name> (Copy)" (then "(Copy) 1", 2, …), made through the normal create. */
import { notFound, orNotFound, validationError } from '../kernel/errors.ts';
import { findFlag } from '../flags/store.ts';
import type { ExperimentDeps } from './deps.ts';
import type { Actor } from './flag.ts';
import { liveFlagIdByKey } from './flag-store.ts';
import type { DuplicateBody, ExperimentWriteBody } from './schemas.ts';
import { findExperiment, liveNamesStartingWith } from './store.ts';
import { createExperiment, type Written } from './write.ts';

export async function duplicateExperiment(deps: ExperimentDeps, projectId: number, id: number, actor: Actor, body: DuplicateBody): Promise<Written> {
  const source = orNotFound(await findExperiment(deps.pool, projectId, id));
  const legacy = [...source.metrics, ...source.metrics_secondary].some((metric) => metric.kind !== undefined && metric.kind !== 'ExperimentMetric');
  if (legacy || source.secondary_metrics.length > 0) throw validationError('Duplication is not supported for experiments using legacy metrics.', null);
  const sourceFlag = await findFlag(deps.pool, projectId, source.feature_flag_id);
  const key = body.feature_flag_key ?? sourceFlag?.key;
  if (key === undefined) throw notFound();

  let parameters = source.parameters;
  if (key !== sourceFlag?.key) {
    const targetId = await liveFlagIdByKey(deps.pool, projectId, key);
    const target = targetId === null ? null : await findFlag(deps.pool, projectId, targetId);
    if (target) parameters = { ...parameters, feature_flag_variants: target.filters.multivariate?.variants ?? [] };
  }

  const base = body.name ?? `${source.name} (Copy)`;
  const taken = await liveNamesStartingWith(deps.pool, projectId, base);
  let name = base;
  for (let n = 1; taken.has(name); n++) name = `${base} ${n}`;

  const copy: ExperimentWriteBody = {
    name,
    description: source.description,
    type: source.type as 'product' | 'web',
    feature_flag_key: key,
    parameters,
    filters: source.filters,
    metrics: source.metrics.map(({ fingerprint: _fingerprint, ...metric }) => metric),
    metrics_secondary: source.metrics_secondary.map(({ fingerprint: _fingerprint, ...metric }) => metric),
    stats_config: source.stats_config,
    exposure_criteria: source.exposure_criteria,
    primary_metrics_ordered_uuids: source.primary_metrics_ordered_uuids,
    secondary_metrics_ordered_uuids: source.secondary_metrics_ordered_uuids,
    scheduling_config: source.scheduling_config,
    only_count_matured_users: source.only_count_matured_users,
    excluded_variants: source.excluded_variants,
  };
  return createExperiment(deps, projectId, actor, copy);
}
