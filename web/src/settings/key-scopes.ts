/** The scope choices of a new personal API key, from the service's own list of scope objects. Pure. */
import { SCOPE_OBJECTS } from '../../../src/accounts/auth/scopes.ts';

export type ScopeAccess = 'none' | 'read' | 'write';

export const SCOPE_OBJECT_NAMES = SCOPE_OBJECTS;

/** `feature_flag` → "Feature flag". */
export function scopeObjectLabel(object: string): string {
  const words = object.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The `scopes` list for the choices: `['*']` for all access, else `object:read|write` per chosen object. */
export function scopesFromChoices(allAccess: boolean, access: Record<string, ScopeAccess>): string[] {
  if (allAccess) return ['*'];
  return SCOPE_OBJECTS.filter((object) => (access[object] ?? 'none') !== 'none').map((object) => `${object}:${access[object]}`);
}
