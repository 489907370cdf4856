/**
 * `POST /api/projects/{id}/feature_flags/{id}/test_evaluation/` (PostHog): how one flag evaluates
 * for one person now, by `distinct_id` or by `person_id` (the person's uuid), with the stored
 * person and group properties. Evaluating at a past `timestamp` needs the flag's and the person's
 * history, which is not kept: such a request is a 400. Deleted flags are not evaluated (404).
 */
import type { Pool } from '../db/pool.ts';
import { findPerson } from '../events/persons/read-model.ts';
import { notFound, validationError } from '../kernel/errors.ts';
import type { FlagRecord } from '../flags/record.ts';
import { loadContext, type ContextLog } from './context.ts';
import { evaluationTurn } from './evaluation-turns.ts';
import { flagValue } from './evaluate.ts';
import { readGroups } from './flags-request.ts';
import type { LiveFlag } from './live-flag.ts';
import type { ProjectView } from './project-view.ts';

export interface TestEvaluationBody {
  distinct_id?: string;
  person_id?: string;
  timestamp?: string | null;
  groups?: unknown;
}

export interface TestEvaluationAnswer {
  flag_key: string;
  result: boolean | string;
  reason: string;
  reason_description: string | null;
  condition_index: number | null;
  payload: unknown;
  person_properties: Record<string, unknown>;
  evaluation_distinct_id: string | null;
  conditions: never[];
}

/** The person properties the flag's conditions read (the answer shows only those). */
function propertyKeysOf(record: FlagRecord): Set<string> {
  const keys = new Set<string>();
  for (const group of record.filters.groups ?? []) {
    for (const property of group.properties ?? []) {
      if ((property.type === undefined || property.type === 'person') && typeof property.key === 'string') keys.add(property.key);
    }
  }
  return keys;
}

function parsedPayload(payload: string | null): unknown {
  if (payload === null) return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
}

/** Which distinct id to evaluate for, and whether the answer may show it (only when the caller sent it). */
async function subjectOf(pool: Pool, projectId: number, body: TestEvaluationBody): Promise<{ distinctId: string; shown: boolean }> {
  const distinctId = body.distinct_id ?? '';
  const personId = body.person_id ?? '';
  if (distinctId === '' && personId === '') throw validationError('Either distinct_id or person_id must be provided');
  if (distinctId !== '' && personId !== '') throw validationError('Cannot provide both distinct_id and person_id');
  if (distinctId !== '') return { distinctId, shown: true };
  const person = await findPerson(pool, projectId, personId);
  if (!person || person.distinct_ids.length === 0) throw notFound();
  // A stable choice among the person's ids; never shown, so a flag reader learns no other ids.
  return { distinctId: [...person.distinct_ids].sort()[0], shown: false };
}

export async function testEvaluation(
  pool: Pool,
  view: ProjectView,
  live: LiveFlag,
  body: TestEvaluationBody,
  log?: ContextLog,
): Promise<TestEvaluationAnswer> {
  if (body.timestamp !== undefined && body.timestamp !== null) {
    throw validationError('Evaluating at a past time is not supported: flag and person history are not kept.', 'timestamp', 'unsupported');
  }
  const groups = body.groups === undefined || body.groups === null ? {} : readGroups(body.groups);
  const subject = await subjectOf(pool, view.projectId, body);
  const { record } = live;
  const keys = propertyKeysOf(record);
  const answer = (result: boolean | string, reason: string, description: string | null, conditionIndex: number | null, payload: unknown, properties: Record<string, unknown>) => ({
    flag_key: record.key,
    result,
    reason,
    reason_description: description,
    condition_index: conditionIndex,
    payload,
    person_properties: Object.fromEntries(Object.entries(properties).filter(([key]) => keys.has(key))),
    evaluation_distinct_id: subject.shown ? subject.distinctId : null,
    conditions: [],
  });
  const { ctx } = await loadContext(pool, view, { distinctId: subject.distinctId, groups }, log);
  await evaluationTurn();
  const [result] = view.flagSet.evaluate(ctx, [live.flag]);
  return answer(flagValue(result), result.reason.code, result.reason.description, result.reason.condition_index, parsedPayload(result.payload), ctx.personProperties);
}
