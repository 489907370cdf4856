/** SQL of the lifecycle jobs: the surveys each job looks at, and the fields the jobs write. */
import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { FlagFilters } from '../../targeting/types.ts';
import type { SurveyRecord } from '../record.ts';

/** The two-integer advisory key of a round: one process at a time runs the jobs. */
export const SURVEY_JOBS_LOCK: readonly [number, number] = [727_020, 0];

/** Takes the round's lock on `db`'s open transaction; false when another process holds it. */
export async function tryJobsLock(db: ReadHandle): Promise<boolean> {
  const { rows } = await db.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::int, $2::int) AS locked', [...SURVEY_JOBS_LOCK]);
  return rows[0].locked;
}

// Candidates are read without their creator (the jobs never show it); the change itself re-reads
// the survey with findSurvey under a row lock.
const CANDIDATE = 'SELECT s.*, NULL::json AS created_by FROM surveys s';

/** Running recurring surveys (a start date, no end date, an iteration count). */
export async function iterationCandidates(db: ReadHandle): Promise<SurveyRecord[]> {
  const { rows } = await db.query<SurveyRecord>(
    `${CANDIDATE} WHERE s.start_date IS NOT NULL AND s.end_date IS NULL AND s.iteration_count > 0 AND s.iteration_frequency_days > 0`,
  );
  return rows;
}

export type SamplingCandidate = SurveyRecord & { sampling_flag_filters: FlagFilters | null };

/** Running surveys with a sampling schedule and a sampling flag, with the flag's filters. */
export async function samplingCandidates(db: ReadHandle): Promise<SamplingCandidate[]> {
  const { rows } = await db.query<SamplingCandidate>(
    `SELECT s.*, NULL::json AS created_by, f.filters AS sampling_flag_filters
       FROM surveys s JOIN feature_flags f ON f.id = s.internal_response_sampling_flag_id AND NOT f.deleted
      WHERE s.start_date IS NOT NULL AND s.end_date IS NULL AND s.response_sampling_daily_limits IS NOT NULL`,
  );
  return rows;
}

/** Launched surveys with a responses limit that have not ended, by project. */
export async function limitCandidates(db: ReadHandle): Promise<Map<number, SurveyRecord[]>> {
  const { rows } = await db.query<SurveyRecord>(
    `${CANDIDATE} WHERE s.responses_limit IS NOT NULL AND s.end_date IS NULL AND s.start_date IS NOT NULL ORDER BY s.project_id, s.id`,
  );
  const byProject = new Map<number, SurveyRecord[]>();
  for (const row of rows) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
  return byProject;
}

/** The fields the jobs change. */
export interface LifecyclePatch {
  end_date?: Date;
  responses_limit?: null;
  current_iteration?: number;
  current_iteration_start_date?: Date;
  internal_targeting_flag_id?: number;
  response_sampling_start_date?: Date;
  response_sampling_daily_limits?: unknown;
}

const JSON_FIELDS = new Set(['response_sampling_daily_limits']);

export async function updateSurveyLifecycle(db: WriteTx, projectId: number, id: string, patch: LifecyclePatch): Promise<void> {
  const entries = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  const sets = entries.map(([field], i) => `${field} = $${i + 3}${JSON_FIELDS.has(field) ? '::jsonb' : ''}`);
  const values = entries.map(([field, value]) => (JSON_FIELDS.has(field) && value !== null ? JSON.stringify(value) : value));
  await db.query(`UPDATE surveys SET ${sets.join(', ')}, updated_at = now() WHERE project_id = $1 AND id = $2`, [projectId, id, ...values]);
}
