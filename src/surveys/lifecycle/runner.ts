/**
 * Runs one job over its due surveys: each survey's change in its own transaction, with the survey
 * row locked, its activity entry (`updated`, no user, `detail.trigger = {job_type, payload}`) and its
 * change notice, all in one unit of work (which tells this process's caches after commit).
 */
import type { JobLog } from '../../kernel/jobs.ts';
import type { SurveyDeps } from '../deps.ts';
import { findSurvey } from '../read-store.ts';
import type { SurveyRecord } from '../record.ts';
import { recordSurveyJobUpdate, surveyFieldChanges } from '../activity.ts';
import type { AppliedChange, Candidate, SurveyJob } from './task.ts';

export type JobDeps = Pick<SurveyDeps, 'pool' | 'units' | 'bus' | 'flagCache'>;


export interface SurveyJobChange {
  jobType: string;
  projectId: number;
  surveyId: string;
  payload: Record<string, unknown>;
  summary: string;
}

async function applyToSurvey<C>(deps: JobDeps, job: SurveyJob<C>, now: Date, target: SurveyRecord, context: C): Promise<AppliedChange | null> {
  return deps.units.run(async (unit) => {
    const { client } = unit;
    const survey = await findSurvey(client, target.project_id, target.id, true);
    if (survey === null) return null;
    const applied = await job.apply({ unit, client, bus: deps.bus, flagCache: deps.flagCache, now }, survey, context);
    if (applied === null) return null;
    const fields = Object.keys(applied.patch);
    const after = { ...survey, ...applied.patch } as SurveyRecord;
    const changes = [...surveyFieldChanges(survey, after, fields), ...applied.extraChanges];
    await recordSurveyJobUpdate(client, survey, changes, { job_type: job.jobType, payload: applied.payload });
    await deps.bus.publish(unit, { kind: 'survey', projectId: survey.project_id, id: survey.id });
    return applied;
  }, { retry: true });
}

/** Every due survey of the job; a failure is logged and stops neither the other surveys nor the other jobs. */
export async function runJob<C>(deps: JobDeps, job: SurveyJob<C>, now: Date, log: JobLog): Promise<SurveyJobChange[]> {
  let candidates: Candidate<C>[];
  try {
    candidates = await job.candidates(deps.pool, now);
  } catch (error) {
    log.error({ err: error, job: job.jobType }, 'survey job failed');
    return [];
  }
  const made: SurveyJobChange[] = [];
  for (const { survey, context } of candidates) {
    try {
      const applied = await applyToSurvey(deps, job, now, survey, context);
      if (applied === null) continue;
      const change = { jobType: job.jobType, projectId: survey.project_id, surveyId: survey.id, payload: applied.payload, summary: applied.summary };
      log.info({ job: job.jobType, projectId: change.projectId, surveyId: change.surveyId, ...applied.payload }, change.summary);
      made.push(change);
    } catch (error) {
      log.error({ err: error, job: job.jobType, projectId: survey.project_id, surveyId: survey.id }, 'survey job failed for this survey');
    }
  }
  return made;
}
