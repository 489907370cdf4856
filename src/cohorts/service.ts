/**
 * Cohort writes. Each change is one transaction that also writes the activity entry and the
 * `cohort` change notice (the SDK definitions cache listens); definition changes in a project are
 * serialised so that two writes cannot close a loop between them.
 */
import type { ReadHandle } from '../db/pool.ts';
import type { UnitOfWork, WriteTx } from '../db/unit-of-work.ts';
import type { CohortDefinition, PropertyGroup } from '../evaluation/index.ts';
import { ApiError, notFound, orNotFound, validationError } from '../kernel/errors.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { recordCohortActivity } from './activity.ts';
import { calculateCount, fillStaticCohort, type CalculationDeps, type FillSource } from './calculation.ts';
import { reachableCohorts } from './definitions.ts';
import { hasBehavioralFilters, hasCriteria, parseCohortFilters } from './filters.ts';
import { cohortMatcher } from './population.ts';
import { checkDeletable, checkFlagUse, checkReferences } from './references.ts';
import type { AddPersonsBody, CohortWriteBody, RemovePersonBody } from './schemas.ts';
import {
  addMembers,
  clearCount,
  findCohort,
  findPersonId,
  insertCohort,
  liveCohorts,
  lockProjectCohorts,
  refreshStaticCount,
  removeMember,
  updateCohort,
  type CohortNode,
  type CohortRecord,
} from './store.ts';

export type CohortDeps = CalculationDeps;

export const MAX_PERSONS_PER_ADD = 10_000;

async function publishCohortChange(deps: CohortDeps, unit: UnitOfWork, projectId: number, id: number): Promise<void> {
  await deps.bus.publish(unit, { kind: 'cohort', projectId, id });
}

/** A calculation the write set up, started once it committed (null: none). */
function startAfterCommit(unit: UnitOfWork, start: (() => void) | null): void {
  if (start) unit.afterCommit(start);
}

/** Runs `work` in a unit of work (its own, or `within`) holding the project's cohort lock. */
async function inCohortUnit<T>(
  deps: CohortDeps,
  projectId: number,
  work: (db: WriteTx, unit: UnitOfWork) => Promise<T>,
  within?: UnitOfWork,
): Promise<T> {
  return deps.units.run(async (unit) => {
    await lockProjectCohorts(unit.client, projectId);
    return work(unit.client, unit);
  }, { within });
}

function checkUnsupported(body: CohortWriteBody): void {
  if (body.groups !== undefined && body.groups !== null && !(Array.isArray(body.groups) && body.groups.length === 0)) {
    throw validationError('Legacy cohort groups are not supported; send the criteria as filters.', 'groups');
  }
  if (body.query !== undefined && body.query !== null) {
    throw validationError('Cohorts defined by a query are not supported; send the criteria as filters.', 'query');
  }
}

/** The filters to store: validated when sent; a static cohort may have none, a dynamic one must. */
function filtersFor(raw: unknown, isStatic: boolean): Record<string, unknown> {
  if (raw === undefined || raw === null) {
    if (isStatic) return {};
    throw validationError("Must contain a 'properties' key with type and values", 'filters');
  }
  return parseCohortFilters(raw) as unknown as Record<string, unknown>;
}

/** Whether the cohort, through the cohorts it references, filters on events (it cannot be computed here). */
function filtersOnEvents(nodes: CohortNode[], self: CohortNode): boolean {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  byId.set(self.id, { ...self, is_static: false });
  return reachableCohorts([self.id], byId).some((node) => !node.is_static && hasBehavioralFilters(node.filters));
}

/** Counts a dynamic cohort, unless it filters on events (then its count stays null). */
async function recount(deps: CohortDeps, db: WriteTx, projectId: number, nodes: CohortNode[], self: CohortNode) {
  if (filtersOnEvents(nodes, self)) {
    await clearCount(db, self.id);
    return null;
  }
  return calculateCount(deps, db, projectId, self.id);
}

async function reread(db: ReadHandle, projectId: number, id: number): Promise<CohortRecord> {
  const cohort = await findCohort(db, projectId, id);
  if (!cohort) throw new Error(`cohort ${id} vanished inside its own transaction`);
  return cohort;
}

export async function createCohort(
  deps: CohortDeps,
  projectId: number,
  actor: UserSummary,
  body: CohortWriteBody,
  within?: UnitOfWork,
): Promise<CohortRecord> {
  checkUnsupported(body);
  const isStatic = body.is_static ?? false;
  const filters = filtersFor(body.filters, isStatic);
  const personIds = body._create_static_person_ids;
  if (personIds !== undefined && !isStatic) {
    throw validationError('Only static cohorts are made of a list of persons.', '_create_static_person_ids');
  }
  return inCohortUnit(deps, projectId, async (db, unit) => {
    const nodes = await liveCohorts(db, projectId);
    checkReferences(nodes, null, filters, isStatic);
    const id = await insertCohort(db, projectId, actor.id, {
      name: body.name ?? '',
      description: body.description ?? '',
      filters,
      isStatic,
      isCalculating: false,
    });
    const self: CohortNode = { id, name: body.name ?? '', is_static: isStatic, filters };
    if (!isStatic) {
      startAfterCommit(unit, await recount(deps, db, projectId, nodes, self));
    } else {
      if (personIds && personIds.length > 0) await addMembers(db, projectId, id, { uuids: personIds, distinctIds: [] });
      if (hasCriteria(filters)) {
        if (filtersOnEvents(nodes, self)) {
          throw validationError('A static cohort cannot be built from filters on events here.', 'filters');
        }
        startAfterCommit(unit, await fillStaticCohort(deps, db, projectId, id, snapshotSource(id, filters)));
      }
      await refreshStaticCount(db, id, false);
    }
    const after = await reread(db, projectId, id);
    await recordCohortActivity(db, { before: null, after, userId: actor.id });
    await publishCohortChange(deps, unit, projectId, id);
    return after;
  }, within);
}

/** The persons matching `filters` now: the members of a static cohort built from criteria. */
function snapshotSource(cohortId: number, filters: Record<string, unknown>): FillSource {
  // The criteria are evaluated as a dynamic cohort under an id no real cohort has.
  const probeId = -cohortId;
  const probe: CohortDefinition = { id: probeId, isStatic: false, filters: (filters as { properties: PropertyGroup }).properties };
  return { matcher: cohortMatcher(probeId), needsDistinctId: false, label: `static cohort ${cohortId}`, extraCohorts: [probe] };
}

/** Creates a static cohort filled from `source` (a flag, for now): PostHog's static cohort from a flag. */
export async function createStaticCohortFrom(
  deps: CohortDeps,
  projectId: number,
  actor: UserSummary,
  values: { name: string; description?: string },
  source: (cohortId: number) => FillSource,
): Promise<CohortRecord> {
  return inCohortUnit(deps, projectId, async (db, unit) => {
    const id = await insertCohort(db, projectId, actor.id, {
      name: values.name,
      description: values.description ?? '',
      filters: {},
      isStatic: true,
      isCalculating: false,
    });
    startAfterCommit(unit, await fillStaticCohort(deps, db, projectId, id, source(id)));
    await refreshStaticCount(db, id, false);
    const after = await reread(db, projectId, id);
    await recordCohortActivity(db, { before: null, after, userId: actor.id });
    await publishCohortChange(deps, unit, projectId, id);
    return after;
  });
}

export async function updateCohortById(
  deps: CohortDeps,
  projectId: number,
  id: number,
  actor: UserSummary,
  body: CohortWriteBody,
): Promise<CohortRecord> {
  checkUnsupported(body);
  return inCohortUnit(deps, projectId, async (db, unit) => {
    const before = orNotFound(await findCohort(db, projectId, id, true));
    if (body.is_static !== undefined && body.is_static !== before.is_static) {
      throw validationError('is_static cannot be changed once the cohort exists; create a new cohort instead.', 'is_static');
    }
    if (body._create_static_person_ids !== undefined) {
      throw validationError('Add persons with add_persons_to_static_cohort.', '_create_static_person_ids');
    }
    const filtersSent = body.filters !== undefined;
    const filters = filtersSent ? filtersFor(body.filters, before.is_static) : before.filters;
    const filtersChanged = filtersSent && JSON.stringify(filters) !== JSON.stringify(before.filters);
    if (before.is_static && filtersChanged && (hasCriteria(before.filters) || hasCriteria(filters))) {
      throw validationError(
        'Editing the criteria of a static cohort is not supported yet. Create a new static cohort instead.',
        'filters',
      );
    }
    const next = {
      name: body.name === undefined ? before.name : (body.name ?? ''),
      description: body.description === undefined ? before.description : (body.description ?? ''),
      filters,
      deleted: body.deleted ?? before.deleted,
    };
    const nodes = (await liveCohorts(db, projectId)).filter((node) => node.id !== id);
    const self: CohortNode = { id, name: next.name, is_static: before.is_static, filters };
    const restoring = before.deleted && !next.deleted;
    if (filtersChanged || restoring) checkReferences(nodes, id, filters, before.is_static);
    if (!next.deleted && (filtersChanged || restoring)) await checkFlagUse(db, projectId, nodes, self);
    if (next.deleted && !before.deleted) await checkDeletable(db, projectId, nodes, id);

    await updateCohort(db, id, next);
    if (!before.is_static && !next.deleted && (filtersChanged || restoring)) startAfterCommit(unit, await recount(deps, db, projectId, nodes, self));
    const after = await reread(db, projectId, id);
    await recordCohortActivity(db, { before, after, userId: actor.id });
    await publishCohortChange(deps, unit, projectId, id);
    return after;
  });
}

function staticOnly(cohort: CohortRecord, verb: 'add' | 'remove'): void {
  if (!cohort.is_static) {
    throw validationError(verb === 'add' ? 'Can only add users to static cohorts' : 'Can only remove users from static cohorts');
  }
}

/** PostHog's `add_persons_to_static_cohort` (person UUIDs), plus distinct ids. */
export async function addPersons(deps: CohortDeps, projectId: number, id: number, actor: UserSummary, body: AddPersonsBody): Promise<void> {
  if (body.person_ids === undefined && body.distinct_ids === undefined) {
    throw validationError('person_ids must be a list', 'person_ids');
  }
  const uuids = body.person_ids ?? [];
  const distinctIds = body.distinct_ids ?? [];
  await inCohortUnit(deps, projectId, async (db, unit) => {
    const cohort = await findCohort(db, projectId, id, true);
    if (!cohort || cohort.deleted) throw notFound();
    staticOnly(cohort, 'add');
    if (uuids.length + distinctIds.length === 0) throw validationError('person_ids cannot be empty', 'person_ids');
    if (uuids.length + distinctIds.length > MAX_PERSONS_PER_ADD) throw validationError('List size exceeds limit', 'person_ids');
    const found = await addMembers(db, projectId, id, { uuids, distinctIds });
    if (found === 0) throw validationError('No valid users to add to cohort', 'person_ids');
    await refreshStaticCount(db, id, true);
    await recordCohortActivity(db, { before: null, after: cohort, userId: actor.id, activity: 'persons_added_manually' });
    await publishCohortChange(deps, unit, projectId, id);
  });
}

/** PostHog's `remove_person_from_static_cohort` (a person UUID), or a distinct id. Idempotent. */
export async function removePerson(deps: CohortDeps, projectId: number, id: number, actor: UserSummary, body: RemovePersonBody): Promise<void> {
  await inCohortUnit(deps, projectId, async (db, unit) => {
    const cohort = await findCohort(db, projectId, id, true);
    if (!cohort || cohort.deleted) throw notFound();
    staticOnly(cohort, 'remove');
    if (!body.person_id && !body.distinct_id) throw validationError('person_id is required', 'person_id');
    const personId = await findPersonId(db, projectId, body.person_id ? { uuid: body.person_id } : { distinctId: body.distinct_id });
    if (personId === null) {
      throw new ApiError(404, 'invalid_request', 'not_found', "Person with this UUID does not exist in the cohort's team");
    }
    await removeMember(db, id, personId);
    await refreshStaticCount(db, id, true);
    await recordCohortActivity(db, { before: null, after: cohort, userId: actor.id, activity: 'person_removed_manually' });
    await publishCohortChange(deps, unit, projectId, id);
  });
}

