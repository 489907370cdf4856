/**
 * The context loader: what the engine needs to evaluate a project's flags for one person, built
 * from the request and the store in a constant number of round trips — one read (person,
 * properties, static cohort memberships, hash-key overrides, groups: `loadSubject`) and, only the
 * first time experience continuity needs it, one write. Cohort definitions and the group type
 * mapping come from the project's cached view.
 *
 * - Person properties: the stored ones merged UNDER the ones sent (the caller's win).
 * - Group properties: for every group sent whose type the project knows, the stored ones merged
 *   under the ones sent.
 * - Experience continuity (PostHog's rule): with `$anon_distinct_id`, every active flag that keeps
 *   continuity gets the anonymous id as its hash key for the person of `distinct_id` and the person
 *   of `$anon_distinct_id` (whichever exist), the first time only (existing keys are kept). A
 *   flag's hash key is then the one of the person of `distinct_id`, else the one of the anonymous
 *   person. Without persons, nothing is written and the distinct id is hashed.
 */
import type { Pool } from '../db/pool.ts';
import { poolWrite } from '../db/unit-of-work.ts';
import type { CohortDefinition, EvaluationContext } from '../evaluation/index.ts';
import type { ProjectView } from './project-view.ts';
import type { PersonCache } from './person-cache.ts';
import { insertHashKeyOverrides, isPersonOnly, loadSubject, subjectOf, type SubjectQuery, type SubjectRow } from './store.ts';

export interface SubjectInput {
  distinctId: string;
  /** `$anon_distinct_id`: writes experience-continuity hash keys (only /flags and /decide send it). */
  anonDistinctId?: string | null;
  deviceId?: string | null;
  /** Group type name → group key. */
  groups: Record<string, string>;
  /** Sent person properties (win over stored ones). */
  personProperties?: Record<string, unknown>;
  /** Sent group properties by group type name (win over stored ones). */
  groupProperties?: Record<string, Record<string, unknown>>;
}

export interface LoadedContext {
  ctx: EvaluationContext;
  /** The store could not be read (or written): the context holds only what the request sent. */
  errors: boolean;
}

export interface ContextLog {
  warn(object: object, message: string): void;
}

type Overrides = Map<number, Map<string, string>>;

function overridesByPerson(row: SubjectRow): Overrides {
  const byPerson: Overrides = new Map();
  for (const override of row.overrides ?? []) {
    let keys = byPerson.get(override.person_id);
    if (!keys) byPerson.set(override.person_id, (keys = new Map()));
    keys.set(override.key, override.hash_key);
  }
  return byPerson;
}

/** `persons`: the person cache, for the SDK endpoints (a person-only read is served from it). */
export async function loadContext(
  pool: Pool,
  view: ProjectView,
  input: SubjectInput,
  log?: ContextLog,
  persons?: PersonCache,
): Promise<LoadedContext> {
  const groupsToRead: { index: number; key: string }[] = [];
  const typeOfIndex = new Map<number, string>();
  for (const [type, key] of Object.entries(input.groups)) {
    const index = view.groupTypeIndexes.get(type);
    if (index === undefined) continue;
    groupsToRead.push({ index, key });
    typeOfIndex.set(index, type);
  }
  const anonDistinctId = input.anonDistinctId ?? null;
  const continuity = view.continuityKeys;
  let row: SubjectRow | null = null;
  let errors = false;
  try {
    const query: SubjectQuery = {
      projectId: view.projectId,
      distinctId: input.distinctId,
      anonDistinctId: continuity.length > 0 ? anonDistinctId : null,
      staticCohortIds: view.staticCohortIds,
      readOverrides: continuity.length > 0,
      groups: groupsToRead,
    };
    row = persons !== undefined && isPersonOnly(query) ? subjectOf(await persons.person(pool, query.projectId, query.distinctId)) : await loadSubject(pool, query);
  } catch (error) {
    errors = true;
    log?.warn({ err: error }, 'flag evaluation: the person could not be read; evaluating with the sent properties only');
  }

  const personProperties: Record<string, unknown> = { ...(row?.properties ?? {}), ...(input.personProperties ?? {}) };
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const stored of row?.groups ?? []) {
    const type = typeOfIndex.get(stored.index);
    if (type !== undefined) groupProperties[type] = { ...stored.properties };
  }
  for (const [type, sent] of Object.entries(input.groupProperties ?? {})) {
    groupProperties[type] = { ...(groupProperties[type] ?? {}), ...sent };
  }
  const staticCohorts = new Set(row?.static_cohorts ?? []);

  let hashKeyOverrides: Record<string, string> | undefined;
  if (row && continuity.length > 0) {
    const stored = overridesByPerson(row);
    const me = row.person_id;
    const anon = anonDistinctId === null ? null : row.anon_person_id;
    let wrote = false;
    if (anonDistinctId !== null) {
      const targets = [...new Set([me, anon].filter((id): id is number => id !== null))];
      const lacking = targets.some((person) => continuity.some((key) => !stored.get(person)?.has(key)));
      if (lacking) {
        try {
          await insertHashKeyOverrides(poolWrite(pool), view.projectId, targets, continuity, anonDistinctId);
          wrote = true;
        } catch (error) {
          errors = true;
          log?.warn({ err: error }, 'flag evaluation: experience-continuity hash keys could not be written');
        }
      }
    }
    hashKeyOverrides = {};
    for (const key of continuity) {
      const ownKey = me === null ? undefined : (stored.get(me)?.get(key) ?? (wrote ? anonDistinctId! : undefined));
      const anonKey = anon === null ? undefined : (stored.get(anon)?.get(key) ?? (wrote ? anonDistinctId! : undefined));
      const chosen = ownKey ?? anonKey;
      if (chosen !== undefined) hashKeyOverrides[key] = chosen;
    }
  }

  return {
    errors,
    ctx: {
      distinctId: input.distinctId,
      deviceId: input.deviceId ?? null,
      personProperties,
      groups: input.groups,
      groupProperties,
      groupTypeMapping: view.groupTypeMapping,
      cohorts: view.cohorts as Map<number, CohortDefinition>,
      staticCohortMembership: (cohortId) => staticCohorts.has(cohortId),
      hashKeyOverrides,
      now: new Date(),
    },
  };
}
