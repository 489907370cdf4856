import type { UserSummary } from '../accounts/users/user-summary.ts';

export const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
export type Stage = (typeof STAGES)[number];

/** The stages whose linked flag serves enrolled persons. `concept` only collects interest. */
const ENROLLING: ReadonlySet<string> = new Set(['alpha', 'beta', 'general-availability']);
export const enrols = (stage: string | null | undefined): boolean => stage != null && ENROLLING.has(stage);

export const isStage = (value: unknown): value is Stage => typeof value === 'string' && (STAGES as readonly string[]).includes(value);

/** The person property posthog-js sets when someone opts in or out of the feature behind `flagKey`. */
export const enrollmentProperty = (flagKey: string): string => `$feature_enrollment/${flagKey}`;

export interface FeatureRecord {
  id: string;
  project_id: number;
  feature_flag_id: number | null;
  name: string;
  description: string;
  stage: Stage;
  documentation_url: string;
  payload: Record<string, unknown>;
  created_by: UserSummary | null;
  created_at: Date;
}
