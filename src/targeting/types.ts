/** The shapes inside a flag's `filters`. Unknown keys are kept as sent. */
export interface FlagProperty {
  key: string | number;
  value?: unknown;
  operator?: string | null;
  type?: string;
  group_type_index?: number | null;
  negation?: boolean;
  [extra: string]: unknown;
}

export interface FlagGroup {
  properties?: FlagProperty[];
  rollout_percentage?: number | null;
  variant?: string | null;
  aggregation_group_type_index?: number | null;
  description?: string | null;
  [extra: string]: unknown;
}

export interface FlagVariant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
  [extra: string]: unknown;
}

export interface FlagFilters {
  groups?: FlagGroup[];
  multivariate?: { variants: FlagVariant[]; [extra: string]: unknown } | null;
  /** Values are JSON-encoded strings. */
  payloads?: Record<string, string>;
  aggregation_group_type_index?: number | null;
  super_groups?: FlagGroup[] | null;
  holdout_groups?: FlagGroup[] | null;
  [extra: string]: unknown;
}

export type EvaluationRuntime = 'server' | 'client' | 'all' | 'both';
