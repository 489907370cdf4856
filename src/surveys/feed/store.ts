import type { ReadHandle } from '../../db/pool.ts';

/** One survey as the public feed needs it: the survey's fields and the keys of its flags. */
export interface FeedRow {
  id: string;
  name: string;
  type: string;
  linked_flag_id: number | null;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  linked_flag_key: string | null;
  targeting_flag_key: string | null;
  internal_targeting_flag_key: string | null;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  translations: unknown;
  start_date: Date | null;
  end_date: Date | null;
  current_iteration: number | null;
  current_iteration_start_date: Date | null;
  schedule: string | null;
  enable_partial_responses: boolean | null;
}

/**
 * The project's surveys that are not archived, oldest first (one order for every process, so they
 * all render the same bytes and ETag). The linked flag's key is given while its row exists, even
 * soft-deleted: posthog-js then finds the flag off and keeps the survey hidden rather than showing
 * it to everyone. The targeting and internal flags count only while live (a removed targeting flag
 * means "everyone").
 */
export async function feedRows(db: ReadHandle, projectId: number): Promise<FeedRow[]> {
  const { rows } = await db.query<FeedRow>(
    `SELECT s.id, s.name, s.type, s.linked_flag_id, s.targeting_flag_id, s.internal_targeting_flag_id,
            lf.key AS linked_flag_key, tf.key AS targeting_flag_key, itf.key AS internal_targeting_flag_key,
            s.questions, s.conditions, s.appearance, s.translations, s.start_date, s.end_date,
            s.current_iteration, s.current_iteration_start_date, s.schedule, s.enable_partial_responses
       FROM surveys s
       LEFT JOIN feature_flags lf ON lf.id = s.linked_flag_id AND lf.project_id = s.project_id
       LEFT JOIN feature_flags tf ON tf.id = s.targeting_flag_id AND tf.project_id = s.project_id AND NOT tf.deleted
       LEFT JOIN feature_flags itf ON itf.id = s.internal_targeting_flag_id AND itf.project_id = s.project_id AND NOT itf.deleted
      WHERE s.project_id = $1 AND NOT s.archived
      ORDER BY s.created_at, s.id`,
    [projectId],
  );
  return rows;
}
