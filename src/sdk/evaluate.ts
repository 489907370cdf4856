/**
 * Evaluating a project's flags for one person: which flags a request asks for, the context loader,
 * then the one engine (`evaluateFlags`). Dependencies are evaluated from every live flag, whatever
 * the selection.
 */
import type { Pool } from '../db/pool.ts';
import type { FlagResult } from '../evaluation/index.ts';
import { SURVEY_FLAG_PREFIX } from '../flags/record.ts';
import { loadContext, type ContextLog, type SubjectInput } from './context.ts';
import { evaluationTurn } from './evaluation-turns.ts';
import type { LiveFlag } from './live-flag.ts';
import type { PersonCache } from './person-cache.ts';
import type { ProjectView, Runtime } from './project-view.ts';

export type { Runtime } from './project-view.ts';

export interface Selection {
  /** `flag_keys_to_evaluate`: only these keys. */
  onlyKeys?: readonly string[] | null;
  /** `evaluation_runtime` of the caller: flags for the other runtime are left out (`all`/`both` flags match any). */
  runtime?: Runtime | null;
  /** `evaluation_contexts`: a flag with evaluation tags is evaluated only when one of them is named. */
  evaluationContexts?: readonly string[] | null;
  /** `only_evaluate_survey_feature_flags`: only the flags surveys own (targeting flags). */
  onlySurveyFlags?: boolean;
}

export interface Evaluated {
  live: LiveFlag;
  result: FlagResult;
}

export interface Evaluation {
  flags: Evaluated[];
  /** Some stored input could not be read: answers may differ from a full evaluation. */
  errors: boolean;
}

/**
 * The flags a request asks for, before anything is evaluated. The usual requests (every flag, or
 * every flag of one runtime) get a list the view keeps, so they cost no filtering.
 */
export function selectFlags(view: ProjectView, selection: Selection): readonly LiveFlag[] {
  const byRuntime = selection.runtime ? view.flagsFor(selection.runtime) : view.flags;
  const only = selection.onlyKeys ? new Set(selection.onlyKeys) : null;
  const contexts = selection.evaluationContexts && selection.evaluationContexts.length > 0 ? new Set(selection.evaluationContexts) : null;
  if (!only && !contexts && !selection.onlySurveyFlags) return byRuntime;
  return byRuntime.filter(({ record }) => {
    if (only && !only.has(record.key)) return false;
    if (contexts && record.evaluation_tags.length > 0 && !record.evaluation_tags.some((tag) => contexts.has(tag))) return false;
    if (selection.onlySurveyFlags && !record.owned_by_survey && !record.key.startsWith(SURVEY_FLAG_PREFIX)) return false;
    return true;
  });
}

/**
 * Evaluates the selected flags; no flag selected → no database work at all. `persons`: the person
 * cache (the SDK endpoints). The evaluation waits
 * for its turn (evaluation-turns.ts); callers render their answer right after, in the same turn.
 */
export async function evaluateFor(
  pool: Pool,
  view: ProjectView,
  input: SubjectInput,
  selection: Selection = {},
  log?: ContextLog,
  persons?: PersonCache,
): Promise<Evaluation> {
  const selected = selectFlags(view, selection);
  if (selected.length === 0) return { flags: [], errors: false };
  const { ctx, errors } = await loadContext(pool, view, input, log, persons);
  await evaluationTurn();
  const everyFlag = selected === view.flags && view.alignedWithFlagSet;
  const results = view.flagSet.evaluate(ctx, everyFlag ? undefined : selected.map((live) => live.flag));
  return { flags: selected.map((live, i) => ({ live, result: results[i] })), errors };
}

/** PostHog's flag value: the variant, else whether it is enabled. */
export function flagValue(result: FlagResult): boolean | string {
  return result.enabled ? (result.variant ?? true) : false;
}
