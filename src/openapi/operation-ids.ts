/**
 * Operation ids in PostHog's style (drf-spectacular's): the path's fixed segments joined by `_`,
 * then the action — `list`, `create`, `retrieve`, `update` (PUT), `partial_update` (PATCH),
 * `destroy` — so `PATCH /api/projects/{project_id}/feature_flags/{id}/` is
 * `feature_flags_partial_update`. `/api` and the `projects/{project_id}` prefix of project
 * resources are left out; under `environments/{project_id}` they are prefixed `environments_`. Where two operations would get the same name, OVERRIDES names one.
 */
export const OVERRIDES: Readonly<Record<string, string>> = {
  'GET /api/surveys': 'surveys_public_feed_retrieve',
  'GET /api/projects/{project_id}/feature_flags/activity': 'feature_flags_all_activity_retrieve',
  'GET /api/projects/{project_id}/surveys/activity': 'surveys_all_activity_retrieve',
  'GET /api/projects/{project_id}/cohorts/activity': 'cohorts_all_activity_retrieve',
  'GET /api/projects/{project_id}/experiments/activity': 'experiments_all_activity_retrieve',
  'GET /api/projects/{project_id}/event_definitions/activity': 'event_definitions_all_activity_retrieve',
  'GET /api/projects/{project_id}/surveys/stats': 'surveys_all_stats_retrieve',
  'POST /ofrep/v1/evaluate/flags/{key}': 'ofrep_v1_evaluate_flag_create',
  'GET /api/feature_flag/local_evaluation': 'feature_flag_local_evaluation_legacy_retrieve',
  'PATCH /api/projects/{project_id}/reset_token': 'projects_reset_token_partial_update',
  'PATCH /api/projects/{project_id}/rotate_secret_token': 'projects_rotate_secret_token_partial_update',
  // Pages read by a cursor (next, no count) are lists all the same.
  'GET /api/projects/{project_id}/events': 'events_list',
  'GET /api/projects/{project_id}/surveys/{id}/responses': 'surveys_responses_list',
};

const ITEM_ACTIONS: Readonly<Record<string, string>> = {
  get: 'retrieve',
  put: 'update',
  patch: 'partial_update',
  delete: 'destroy',
  post: 'create',
};

const isParameter = (segment: string) => segment.startsWith('{');

/** `paginated`: the GET answers a page or an array (`list`) rather than one object (`retrieve`). */
export function operationIdFor(method: string, path: string, paginated: boolean): string {
  const override = OVERRIDES[`${method.toUpperCase()} ${path}`];
  if (override) return override;
  // Every project route is served under /api/environments/{project_id}/ too: the same names,
  // prefixed `environments_` (as PostHog's document names them).
  const inEnvironment = /^\/api\/environments\/\{project_id\}(\/.+)$/.exec(path);
  const projectOverride = inEnvironment ? OVERRIDES[`${method.toUpperCase()} /api/projects/{project_id}${inEnvironment[1]}`] : undefined;
  if (projectOverride && !projectOverride.startsWith('projects_')) return `environments_${projectOverride}`;
  let segments = path.split('/').filter((segment) => segment !== '');
  if (segments[0] === 'api') segments = segments.slice(1);
  if (segments[0] === 'projects' && segments[1] === '{project_id}' && segments.length > 2) segments = segments.slice(2);
  const endsWithParameter = segments.length > 0 && isParameter(segments[segments.length - 1]);
  const name = segments
    .filter((segment) => !isParameter(segment))
    .map((segment) => segment.replace(/^@/, '').replace(/[^A-Za-z0-9]+/g, '_'))
    .join('_');
  const verb = method.toLowerCase();
  const action = endsWithParameter || verb !== 'get' ? ITEM_ACTIONS[verb] : paginated ? 'list' : 'retrieve';
  return `${name}_${action}`;
}
