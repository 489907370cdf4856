import type { FlagFilters } from '../../targeting/types.ts';
import type { SurveyRecord } from '../record.ts';

/** What the survey rules need to know about the rest of the project (the service reads it from the DB). */
export interface SurveyLookup {
  /** A live (not deleted) flag of the same project, or null. */
  flagById(id: number): Promise<{ id: number; key: string; filters: FlagFilters } | null>;
  /** Another survey of the project (not `exceptId`) holds this name. */
  surveyNameTaken(name: string, exceptId: string | null): Promise<boolean>;
}

export interface SurveyValidationContext {
  /** POST (or a duplicate's copy): required fields, create-time messages. */
  isCreate: boolean;
  /** The stored survey on PATCH (shuffle vs branching looks at stored questions and appearance). */
  existing: SurveyRecord | null;
  lookup: SurveyLookup;
  now: Date;
}
