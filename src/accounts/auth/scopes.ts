/** The objects a personal API key can be scoped to (PostHog's names). */
export const SCOPE_OBJECTS = [
  'action',
  'activity_log',
  'annotation',
  'approvals',
  'cohort',
  'dashboard',
  'early_access_feature',
  'event_definition',
  'experiment',
  'feature_flag',
  'group',
  'insight',
  'organization',
  'organization_member',
  'person',
  'project',
  'property_definition',
  'query',
  'survey',
  'user',
  'webhook',
] as const;

export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
/** A scope a route may require; `*` (all scopes) only for key management. */
export type Scope = `${ScopeObject}:${'read' | 'write'}` | '*';

const VALID_SCOPES = new Set<string>(['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])]);

export function isValidScope(scope: string): boolean {
  return VALID_SCOPES.has(scope);
}

/** `*` grants everything; `x:write` also grants `x:read`. */
export function scopesGrant(granted: ReadonlySet<string>, required: Scope): boolean {
  if (granted.has('*') || granted.has(required)) return true;
  if (required.endsWith(':read')) return granted.has(`${required.slice(0, -5)}:write`);
  return false;
}
