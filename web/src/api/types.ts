/**
 * The API's answers, as the console reads them: derived from the types openapi-typescript makes
 * from the served OpenAPI document (generated/api.d.ts, `npm run openapi:types`), so that
 * `npm run typecheck` fails when the server's answers and the console's reading of them drift apart.
 */
import type { components, operations } from './generated/api.d.ts';

export type Schemas = components['schemas'];

/** The JSON answer of an operation (by its operation id) with a status. */
export type AnswerOf<Id extends keyof operations, Status extends number = 200> = operations[Id]['responses'] extends Record<
  Status,
  { content: { 'application/json': infer Body } }
>
  ? Body
  : never;

/** One item of a list operation's answer (a page's `results`, or the array itself). */
export type ItemOf<Id extends keyof operations> = AnswerOf<Id> extends { results: Array<infer Item> }
  ? Item
  : AnswerOf<Id> extends Array<infer Item>
    ? Item
    : never;

export type FlagFilters = Schemas['FlagFilters'];
export type FlagProperty = Schemas['FlagProperty'];
export type FlagConditionGroup = Schemas['FlagConditionGroup'];
export type FlagVariant = Schemas['FlagVariant'];

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export type UserSummary = Schemas['UserBasic'];
export type Me = AnswerOf<'users_me_retrieve'>;
export type TeamSummary = NonNullable<Me['team']>;
export type OrganizationSummary = Me['organizations'][number];
export type Project = AnswerOf<'projects_retrieve'>;

export type FeatureFlag = Schemas['FeatureFlag'];
export type FlagStatus = FeatureFlag['status'];
export type EvaluationRuntime = FeatureFlag['evaluation_runtime'];
export type PersonsServed = AnswerOf<'feature_flags_persons_served_retrieve'>;

export type ActivityEntry = Schemas['ActivityLog'];
export type ActivityChange = NonNullable<ActivityEntry['detail']['changes']>[number];
export type ActivityPage = AnswerOf<'feature_flags_all_activity_retrieve'>;

export type EvaluationReason = Schemas['FlagEvaluationReason'];
export type GroupType = ItemOf<'groups_types_list'>;
export type Person = ItemOf<'persons_list'>;
export type Member = ItemOf<'organizations_members_list'>;
export type Invite = ItemOf<'organizations_invites_list'>;
/** A key as listed; `value` only in the answer that created it. */
export type PersonalApiKey = ItemOf<'personal_api_keys_list'> & Partial<Pick<AnswerOf<'personal_api_keys_create', 201>, 'value'>>;

export type Cohort = Schemas['Cohort'];
export type CohortGroup = Schemas['CohortPropertyGroup'];
export type CohortProperty = Schemas['CohortProperty'];

export type Dashboard = AnswerOf<'dashboards_retrieve'>;
export type TrendSeries = Schemas['TrendsSeries'];

/** The whole secret only in the answers of create and rotate_secret; masked otherwise. */
export type Webhook = AnswerOf<'webhooks_retrieve'>;
export type WebhookDelivery = ItemOf<'webhooks_deliveries_list'>;

/** What the sign-in page offers (`/api/login/methods/`). */
export type LoginMethods = AnswerOf<'login_methods_retrieve'>;
export type ResetLink = AnswerOf<'organizations_members_password_reset_link_create', 201>;
export type PlaygroundAnswer = AnswerOf<'feature_flags_playground_create'>;
export type PlaygroundFlag = PlaygroundAnswer['flags'][number];
export type PlaygroundRequest = NonNullable<operations['feature_flags_playground_create']['requestBody']>['content']['application/json'];
