/**
 * `POST {id}/duplicate_to_projects`: a draft copy of the survey in
 * every target project, all in ONE transaction — any failure leaves no copy and no flag anywhere,
 * and the error names the target that failed.
 *
 * Unlike PostHog (bulk_create, which skips the model's save hooks), each copy goes through the
 * normal create path: it is validated as a create in its target project, gets its question ids,
 * save-time fields and its own internal targeting flag, an activity entry and a change notice.
 */
import type { Authenticator } from '../accounts/auth/authenticator.ts';
import { principalCanReach, type Principal } from '../accounts/auth/principal.ts';
import { ApiError, validationError } from '../kernel/errors.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import { surveyChange } from './activity.ts';
import { createSurveyIn, type WrittenSurvey } from './create.ts';
import { requireSurvey } from './read-store.ts';
import type { SurveyRecord } from './record.ts';
import type { DuplicateBody, SurveyWriteBody } from './schemas.ts';
import { isPlainObject } from './validation/python.ts';
import { isSurveyNameViolation, type SurveyWriteDeps } from './write.ts';
import { listError } from './errors.ts';

const INT32_MAX = 2147483647;
const NAME_MAX = 400;

export interface DuplicateRequest {
  projectId: number;
  rawId: string;
  principal: Principal;
  body: DuplicateBody;
}

export interface DuplicateResult {
  created_surveys: { team_id: number; survey_id: string; name: string }[];
  count: number;
}

/** The target ids as sent (`target_team_ids`, or `target_project_ids`): a non-empty list of project ids, none twice. */
export function parseTargets(body: DuplicateBody): number[] {
  const raw = body.target_team_ids ?? body.target_project_ids;
  if (!Array.isArray(raw) || raw.length === 0) throw listError();
  const ids = raw.map((value) => {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    if (!/^\d{1,10}$/.test(text) || Number(text) > INT32_MAX) throw listError();
    return Number(text);
  });
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) throw validationError(`Project ${id} is listed more than once.`, 'target_team_ids');
    seen.add(id);
  }
  return ids;
}

/** Every target is a project the key may reach; else 400 naming the first that is not. */
async function checkReach(targets: number[], principal: Principal, authenticator: Authenticator): Promise<void> {
  for (const id of targets) {
    const project = await authenticator.project(id);
    if (!project || !principalCanReach(principal, project)) {
      throw validationError(`Project ${id} not found or you don't have access to it.`, 'target_team_ids');
    }
  }
}

/** `YYYY-MM-DD HH:MM:SS` (UTC). */
function stamp(now: Date): string {
  return now.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The copy's body: name with the duplication time; description, type, appearance,
 * responses_limit, iterations, schedule and partial responses copied; questions without their ids;
 * conditions without linkedFlagVariant, actions and events; always a draft, not archived. Flags,
 * sampling settings, translations, iframe embedding and insights are not copied.
 */
export function copyBody(source: SurveyRecord, now: Date): SurveyWriteBody {
  const questions = Array.isArray(source.questions)
    ? source.questions.map((question) => {
        if (!isPlainObject(question)) return question;
        const { id: _id, ...rest } = question;
        return rest;
      })
    : source.questions;
  let conditions = source.conditions;
  if (isPlainObject(conditions)) {
    const { linkedFlagVariant: _variant, actions: _actions, events: _events, ...rest } = conditions;
    conditions = rest;
  }
  return {
    name: `${source.name} (duplicated at ${stamp(now)})`,
    description: source.description,
    type: source.type as SurveyWriteBody['type'],
    appearance: source.appearance,
    questions,
    conditions,
    responses_limit: source.responses_limit,
    iteration_count: source.iteration_count,
    iteration_frequency_days: source.iteration_frequency_days,
    schedule: source.schedule,
    enable_partial_responses: source.enable_partial_responses,
    archived: false,
    start_date: null,
    end_date: null,
  };
}

/** An error of one copy, reworded to name its target project (attr and code kept). */
function namingTarget(target: number, error: unknown): Error {
  if (error instanceof ApiError) {
    return new ApiError(error.status, error.type, error.code, `Project ${target}: ${error.message}`, error.attr);
  }
  if (isSurveyNameViolation(error)) {
    return validationError(`Project ${target}: There is already a survey with this name.`, 'name', 'unique');
  }
  const wrapped = validationError(`Project ${target}: duplication failed due to an unexpected error`, 'error', 'invalid');
  (wrapped as Error).cause = error;
  return wrapped;
}

export async function duplicateSurvey(deps: SurveyWriteDeps & { authenticator: Authenticator }, request: DuplicateRequest): Promise<DuplicateResult> {
  const { projectId, principal } = request;
  const source = await requireSurvey(deps.pool, projectId, request.rawId);
  const targets = parseTargets(request.body);
  await checkReach(targets, principal, deps.authenticator);
  const actor = toUserSummary(principal.user);
  const now = new Date();

  const written = await deps.units.run(async (unit) => {
    const copies: WrittenSurvey[] = [];
    for (const target of targets) {
      try {
        const body = copyBody(source, now);
        if ((body.name ?? '').length > NAME_MAX) throw validationError(`Ensure this field has no more than ${NAME_MAX} characters.`, 'name', 'max_length');
        copies.push(
          await createSurveyIn(unit, deps, target, actor, body, {
            now,
            activityChanges: [surveyChange('created', 'source_survey_id', null, source.id)],
          }),
        );
      } catch (error) {
        throw namingTarget(target, error);
      }
    }
    return copies;
  }, { retry: true });
  const created = written.map(({ survey }) => ({ team_id: survey.project_id, survey_id: survey.id, name: survey.name }));
  return { created_surveys: created, count: created.length };
}
