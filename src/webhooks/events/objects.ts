/**
 * The object an event carries, as the API serves it, read on the change's own transaction (so it
 * is the object as this change left it).
 */
import type { ReadHandle } from '../../db/pool.ts';
import { findCohort } from '../../cohorts/store.ts';
import { presentCohort } from '../../cohorts/present.ts';
import { presentFlagBody } from '../../flags/present.ts';
import type { FlagRecord } from '../../flags/record.ts';
import { findFlag } from '../../flags/store.ts';
import { presentSurvey } from '../../surveys/present.ts';
import { findSurvey } from '../../surveys/read-store.ts';
import { presentExperiment } from '../../experiments/present.ts';
import { findExperiment } from '../../experiments/store.ts';

export type ObjectLoader = (db: ReadHandle, projectId: number, itemId: string) => Promise<Record<string, unknown> | null>;

export const flagObject: ObjectLoader = async (db, projectId, itemId) => {
  const flag = await findFlag(db, projectId, Number(itemId));
  return flag ? { ...presentFlagBody(flag) } : null;
};

export const cohortObject: ObjectLoader = async (db, projectId, itemId) => {
  const cohort = await findCohort(db, projectId, Number(itemId));
  return cohort ? { ...presentCohort(cohort) } : null;
};

export const surveyObject: ObjectLoader = async (db, projectId, itemId) => {
  const survey = await findSurvey(db, projectId, itemId);
  if (!survey) return null;
  const flags = new Map<number, FlagRecord>();
  for (const id of [survey.linked_flag_id, survey.targeting_flag_id, survey.internal_targeting_flag_id, survey.internal_response_sampling_flag_id]) {
    if (id === null || flags.has(id)) continue;
    const flag = await findFlag(db, projectId, id);
    if (flag) flags.set(id, flag);
  }
  // Who looks decides only `user_access_level`, which means nothing to a receiver.
  const { user_access_level: _viewerOnly, ...object } = presentSurvey(survey, (id) => (id === null ? null : (flags.get(id) ?? null)), {
    userId: 0,
    organizationLevel: null,
  });
  return object;
};

export const experimentObject: ObjectLoader = async (db, projectId, itemId) => {
  const experiment = await findExperiment(db, projectId, Number(itemId), { includeDeleted: true });
  if (!experiment) return null;
  const flag = await findFlag(db, projectId, experiment.feature_flag_id);
  // Who looks decides only `user_access_level`, which means nothing to a receiver.
  const { user_access_level: _viewerOnly, ...object } = presentExperiment(experiment, (id) => (flag !== null && flag.id === id ? flag : null), {
    userId: 0,
    organizationLevel: null,
  });
  return object;
};
