/**
 * The experiment's flag: created, rewritten, switched on and off through the flags area's one
 * writer (validation, activity entry, change notice, cache), in the experiment's unit of work.
 */
import type { Membership } from '../accounts/auth/principal.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { createFlag } from '../flags/create.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { FlagWriteBody } from '../flags/schemas.ts';
import { findFlag } from '../flags/store.ts';
import { updateFlagById } from '../flags/update.ts';
import type { FlagFilters } from '../targeting/types.ts';
import type { ExperimentDeps } from './deps.ts';
import { DEFAULT_VARIANTS, type Variant } from './fields.ts';
import { liveFlagIdByKey } from './flag-store.ts';

export interface Actor {
  user: UserSummary;
  organizationLevel: Membership['level'] | null;
}

export async function liveFlagByKey(unit: UnitOfWork, projectId: number, key: string): Promise<FlagRecord | null> {
  const id = await liveFlagIdByKey(unit.client, projectId, key);
  return id === null ? null : findFlag(unit.client, projectId, id, true);
}

export interface NewExperimentFlag {
  key: string;
  experimentName: string;
  variants: Variant[];
  aggregationGroupTypeIndex: number | null;
  active: boolean;
  ensureExperienceContinuity?: boolean;
}

/** The flag PostHog creates for an experiment: everyone, the variants (control/test 50/50 by default), off while a draft. */
export async function createExperimentFlag(deps: ExperimentDeps, unit: UnitOfWork, projectId: number, actor: Actor, flag: NewExperimentFlag): Promise<FlagRecord> {
  const body: FlagWriteBody = {
    key: flag.key,
    name: `Feature Flag for Experiment ${flag.experimentName}`,
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: flag.variants.length > 0 ? flag.variants : DEFAULT_VARIANTS },
      aggregation_group_type_index: flag.aggregationGroupTypeIndex,
      holdout_groups: null,
    },
    active: flag.active,
    creation_context: 'experiments',
    ...(flag.ensureExperienceContinuity !== undefined ? { ensure_experience_continuity: flag.ensureExperienceContinuity } : {}),
  };
  return createFlag(deps, projectId, actor.user, body, unit);
}

/** Writes `body` to the experiment's flag through the flags writer (its rules apply). */
export async function writeExperimentFlag(deps: ExperimentDeps, unit: UnitOfWork, projectId: number, flagId: number, actor: Actor, body: FlagWriteBody): Promise<FlagRecord> {
  return updateFlagById(deps, {
    projectId,
    flagId,
    viewer: { userId: actor.user.id, organizationLevel: actor.organizationLevel },
    actor: actor.user,
    body,
    ifMatch: null,
    within: unit,
  });
}

/** A draft's flag takes the experiment's variants (default control/test when empty) and group type; its condition sets are kept. */
export function draftFlagFilters(current: FlagFilters, variants: Variant[], aggregationGroupTypeIndex: number | null): FlagFilters {
  return {
    ...current,
    groups: current.groups ?? [{ properties: [], rollout_percentage: 100 }],
    multivariate: { ...(current.multivariate ?? {}), variants: variants.length > 0 ? variants : DEFAULT_VARIANTS },
    aggregation_group_type_index: aggregationGroupTypeIndex,
  } as FlagFilters;
}

/** The flag after shipping `variantKey`: it gets 100 % of the split; with `releaseToEveryone` a catch-all condition set comes first. */
export function shippedFilters(current: FlagFilters, variantKey: string, releaseToEveryone: boolean): FlagFilters {
  const variants = (current.multivariate?.variants ?? []).map((variant) => ({ ...variant, rollout_percentage: variant.key === variantKey ? 100 : 0 }));
  const groups = current.groups ?? [];
  return {
    ...current,
    multivariate: { ...(current.multivariate ?? {}), variants },
    groups: releaseToEveryone ? [{ properties: [], rollout_percentage: 100 }, ...groups] : groups,
  } as FlagFilters;
}
