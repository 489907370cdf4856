/**
 * Archiving single responses: a response is the uuid of its
 * latest `survey sent` event; archiving stores it, unarchiving removes it. Both are idempotent and
 * log activity only when something changed, in the same transaction. Nothing checks that an event
 * with that uuid exists (as PostHog).
 */
import type { Pool, ReadHandle } from '../../db/pool.ts';
import type { UnitsOfWork, WriteTx } from '../../db/unit-of-work.ts';
import { canonicalUuid } from '../../events/ingestion/uuid.ts';
import { recordActivity } from '../../accounts/activity/store.ts';
import { validationError } from '../../kernel/errors.ts';
import { requireSurvey } from '../read-store.ts';
import { SURVEY_ACTIVITY_SCOPE } from '../record.ts';

export interface ArchiveAnswer {
  response_uuid: string;
  archived: boolean;
}

/** The survey's archived responses, oldest archive first. */
export async function archivedUuidsOfSurvey(db: ReadHandle, projectId: number, surveyId: string): Promise<string[]> {
  const { rows } = await db.query<{ uuid: string }>(
    'SELECT response_uuid::text AS uuid FROM survey_response_archives WHERE project_id = $1 AND survey_id = $2 ORDER BY archived_at, response_uuid',
    [projectId, surveyId],
  );
  return rows.map((row) => row.uuid);
}

/** Every archived response of the project, whichever survey it was archived under. */
export async function archivedUuidsOfProject(db: ReadHandle, projectId: number): Promise<string[]> {
  const { rows } = await db.query<{ uuid: string }>(
    'SELECT response_uuid::text AS uuid FROM survey_response_archives WHERE project_id = $1',
    [projectId],
  );
  return rows.map((row) => row.uuid);
}

export async function archivedResponseUuids(pool: Pool, projectId: number, rawSurveyId: string): Promise<string[]> {
  const survey = await requireSurvey(pool, projectId, rawSurveyId);
  return archivedUuidsOfSurvey(pool, projectId, survey.id);
}

function responseUuidOf(raw: string): string {
  const uuid = canonicalUuid(raw);
  if (uuid === null) throw validationError('Invalid UUID format', 'response_uuid', 'invalid');
  return uuid;
}

// A uuid already archived under another survey of the project stays there (one row per uuid).
const INSERT = `INSERT INTO survey_response_archives (project_id, survey_id, response_uuid) VALUES ($1, $2, $3)
  ON CONFLICT (project_id, response_uuid) DO NOTHING RETURNING id`;
const DELETE = 'DELETE FROM survey_response_archives WHERE project_id = $1 AND survey_id = $2 AND response_uuid = $3 RETURNING id';

async function logResponseActivity(db: WriteTx, projectId: number, surveyId: string, activity: string, uuid: string, userId: number): Promise<void> {
  await recordActivity(db, {
    projectId,
    scope: SURVEY_ACTIVITY_SCOPE,
    itemId: surveyId,
    activity,
    userId,
    detail: { changes: null, trigger: null, type: null, name: `Response ${uuid}`, short_id: null },
  });
}

/** Archive (`archived` true) or unarchive one response of the survey. */
export async function setResponseArchived(
  units: UnitsOfWork,
  target: { projectId: number; rawSurveyId: string; rawResponseUuid: string; userId: number },
  archived: boolean,
): Promise<ArchiveAnswer> {
  const survey = await requireSurvey(units.pool, target.projectId, target.rawSurveyId);
  const uuid = responseUuidOf(target.rawResponseUuid);
  await units.run(async ({ client }) => {
    const { rowCount } = await client.query(archived ? INSERT : DELETE, [target.projectId, survey.id, uuid]);
    if (!rowCount) return;
    await logResponseActivity(client, target.projectId, survey.id, archived ? 'response_archived' : 'response_unarchived', uuid, target.userId);
  }, { retry: true });
  return { response_uuid: uuid, archived };
}
