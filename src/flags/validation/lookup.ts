import type { FlagFilters } from '../../targeting/types.ts';

/** What filters validation needs to know about the rest of the project (the service reads it from the DB). */
export interface FlagLookup {
  /** Live (not deleted) flags of the same project with these ids; unknown ids are simply missing. */
  flagsByIds(ids: number[]): Promise<Array<{ id: number; key: string; active: boolean; filters: FlagFilters }>>;
  /** live flags only (not deleted), same project */
  allLiveFlags(): Promise<Array<{ id: number; key: string; filters: FlagFilters }>>;
  /** Cohorts of the same project with these ids; unknown ids are simply missing. */
  cohortsByIds(
    ids: number[],
  ): Promise<Array<{ id: number; name: string; hasBehavioralFilters: boolean; dependsOn: number[] }>>;
}

export interface FilterValidationContext {
  /** POST: `groups` must be non-empty. */
  isCreate: boolean;
  /** The flag being updated; null on create. */
  flagId: number | null;
  /** The flag's key (the request's key on create). Null skips the cycle check, as PostHog does. */
  flagKey: string | null;
  lookup: FlagLookup;
}
