import type { ReadHandle } from '../db/pool.ts';
import { canonicalUuid } from '../events/ingestion/uuid.ts';
import { notFound, orNotFound } from '../kernel/errors.ts';
import { userSummarySql } from '../accounts/users/user-summary.ts';
import type { SurveyRecord } from './record.ts';

const SELECT_SURVEY = `SELECT s.*, ${userSummarySql('cu')} AS created_by
  FROM surveys s LEFT JOIN users cu ON cu.id = s.created_by_id`;

/** A path id that is not a UUID names no survey (404, as PostHog's `12345` test expects). */
export function parseSurveyId(raw: string): string {
  const id = canonicalUuid(raw);
  if (id === null) throw notFound();
  return id;
}

export async function findSurvey(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<SurveyRecord | null> {
  const lock = forUpdate ? ' FOR UPDATE OF s' : '';
  const { rows } = await db.query<SurveyRecord>(`${SELECT_SURVEY} WHERE s.project_id = $1 AND s.id = $2${lock}`, [projectId, id]);
  return rows[0] ?? null;
}

/** The survey or a 404: what every `{id}` endpoint starts with. */
export async function requireSurvey(db: ReadHandle, projectId: number, rawId: string, forUpdate = false): Promise<SurveyRecord> {
  return orNotFound(await findSurvey(db, projectId, parseSurveyId(rawId), forUpdate));
}
