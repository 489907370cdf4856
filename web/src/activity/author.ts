import type { ActivityEntry } from '../api/types.ts';
import { displayName } from '../shell/session.ts';

/** Who an entry names: a person, or Bellwether for an entry no person made (its user is the System user). */
export function authorOf(entry: Pick<ActivityEntry, 'user'>): string {
  return 'is_system' in entry.user ? 'Bellwether' : displayName(entry.user);
}
