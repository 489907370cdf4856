/**
 * The playground: how every flag (or the ones named) evaluates for a distinct id and person and
 * group properties the caller makes up. Nothing is read from or written to the database: no stored
 * person, no static cohort membership, no experience-continuity hash keys. Cohorts with property
 * filters are matched against the given properties, as the engine always does.
 */
import type { CohortDefinition, EvaluationContext } from '../evaluation/index.ts';
import { evaluationTurn } from './evaluation-turns.ts';
import { flagValue } from './evaluate.ts';
import type { LiveFlag } from './live-flag.ts';
import type { ProjectView } from './project-view.ts';

export interface PlaygroundInput {
  distinct_id: string;
  person_properties?: Record<string, unknown>;
  groups?: Record<string, string>;
  group_properties?: Record<string, Record<string, unknown>>;
  /** Only these flags (unknown keys are listed in `unknown_keys`). */
  flag_keys?: string[];
}

export interface PlaygroundFlag {
  id: number;
  key: string;
  name: string;
  active: boolean;
  value: boolean | string;
  payload: unknown;
  reason: string;
  reason_description: string;
  condition_index: number | null;
}

export interface PlaygroundAnswer {
  distinct_id: string;
  flags: PlaygroundFlag[];
  unknown_keys: string[];
}

function parsedPayload(payload: string | null): unknown {
  if (payload === null) return null;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return payload;
  }
}

function contextOf(view: ProjectView, input: PlaygroundInput): EvaluationContext {
  const groups = input.groups ?? {};
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [type, properties] of Object.entries(input.group_properties ?? {})) {
    if (type in groups) groupProperties[type] = properties;
  }
  return {
    distinctId: input.distinct_id,
    deviceId: null,
    personProperties: input.person_properties ?? {},
    groups,
    groupProperties,
    groupTypeMapping: view.groupTypeMapping,
    cohorts: view.cohorts as Map<number, CohortDefinition>,
    staticCohortMembership: () => false,
    now: new Date(),
  };
}

/** The flags shown: the ones named, else every live flag a person sees in the flag list (not survey-owned). */
function selected(view: ProjectView, keys: readonly string[] | undefined): { flags: readonly LiveFlag[]; unknown: string[] } {
  if (!keys) return { flags: view.flags.filter(({ record }) => !record.owned_by_survey), unknown: [] };
  const wanted = new Set(keys);
  const flags = view.flags.filter(({ record }) => wanted.has(record.key));
  const found = new Set(flags.map(({ record }) => record.key));
  return { flags, unknown: [...wanted].filter((key) => !found.has(key)) };
}

export async function playground(view: ProjectView, input: PlaygroundInput): Promise<PlaygroundAnswer> {
  const { flags, unknown } = selected(view, input.flag_keys);
  if (flags.length === 0) return { distinct_id: input.distinct_id, flags: [], unknown_keys: unknown };
  const ctx = contextOf(view, input);
  await evaluationTurn();
  const everyFlag = flags.length === view.flags.length && view.alignedWithFlagSet;
  const results = view.flagSet.evaluate(ctx, everyFlag ? undefined : flags.map((live) => live.flag));
  return {
    distinct_id: input.distinct_id,
    unknown_keys: unknown,
    flags: flags.map(({ record }, i) => {
      const result = results[i];
      return {
        id: record.id,
        key: record.key,
        name: record.name,
        active: record.active,
        value: flagValue(result),
        payload: parsedPayload(result.payload),
        reason: result.reason.code,
        reason_description: result.reason.description,
        condition_index: result.reason.condition_index,
      };
    }),
  };
}
