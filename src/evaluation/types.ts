/**
 * The flag evaluation engine's inputs and outputs. The engine is pure: everything it needs
 * (flags, person and group properties, cohorts, static cohort membership, hash-key overrides,
 * the clock) comes in through these shapes; nothing is read from a database here.
 */
import type { FlagFilters, FlagProperty } from '../targeting/types.ts';

export type { FlagFilters, FlagGroup, FlagProperty, FlagVariant } from '../targeting/types.ts';

/** A flag as the engine needs it (the columns of a feature flag that matter for evaluation). */
export interface EvaluationFlag {
  id: number;
  key: string;
  active: boolean;
  deleted: boolean;
  version: number;
  filters: FlagFilters;
  ensure_experience_continuity: boolean | null;
  bucketing_identifier: string | null;
  evaluation_runtime: string;
}

/** `{type: 'AND' | 'OR', values: [property | PropertyGroup]}`, nested to any depth. */
export interface PropertyGroup {
  type: 'AND' | 'OR' | string;
  values: Array<FlagProperty | PropertyGroup>;
}

export interface CohortDefinition {
  id: number;
  isStatic: boolean;
  /** The cohort's property groups (PostHog's `filters.properties`). Ignored for static cohorts. */
  filters: PropertyGroup;
}

export interface EvaluationContext {
  distinctId: string;
  /** `$device_id` sent with the request; the person property `$device_id` is used when absent. */
  deviceId?: string | null;
  /** Stored person properties merged with the ones the caller sent (the caller's win). */
  personProperties: Record<string, unknown>;
  /** Group type name → group key. */
  groups: Record<string, string>;
  /** Group type name → properties (stored merged with sent). */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Group type index → group type name. */
  groupTypeMapping: Record<number, string>;
  /** Every cohort the flags may reference (dynamic and static; static ones need `staticCohortMembership`). */
  cohorts: Map<number, CohortDefinition>;
  /** Whether the person is in a static cohort (the caller knows the person's memberships). */
  staticCohortMembership?: (cohortId: number) => boolean;
  /** Flag key → hash key (experience continuity). */
  hashKeyOverrides?: Record<string, string>;
  now?: Date;
}

export type ReasonCode =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'flag_disabled'
  | 'missing_dependency';

export interface FlagReason {
  code: ReasonCode;
  condition_index: number | null;
  description: string;
}

export interface FlagResult {
  key: string;
  enabled: boolean;
  variant: string | null;
  /** The stored JSON-encoded payload for the value the flag took, or null. */
  payload: string | null;
  reason: FlagReason;
}

/** What a flag dependency evaluated to; null when the dependency cannot be evaluated (missing, cycle). */
export type DependencyValue = { enabled: boolean; variant: string | null } | null;

/** Resolves a `type: "flag"` property to its dependency's value. */
export type DependencyResolver = (property: FlagProperty) => DependencyValue;
