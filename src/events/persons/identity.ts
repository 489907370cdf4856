import { createHash } from 'node:crypto';
import { advisoryLockKeys } from '../../db/advisory-locks.ts';

// A namespace of our own for the name-based UUIDs below (any constant works; it must never change).
const PERSON_NAMESPACE = Buffer.from('6f1d2c1e8b3a4f5e9a0b7c6d5e4f3a2b', 'hex');
const LOCK_NAMESPACE = 'bellwether:person-distinct-id:';

/**
 * The uuid a person created for `distinctId` gets: a name-based UUID (version 5 layout) of the
 * project and the distinct id. Events that do not process persons (`$process_person_profile:
 * false`, `$groupidentify`) and whose distinct id has no person yet carry this uuid too, so they
 * name the person the distinct id will have once one is created.
 */
export function personUuidFor(projectId: number, distinctId: string): string {
  const bytes = createHash('sha1').update(PERSON_NAMESPACE).update(`${projectId}:${distinctId}`, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The advisory lock keys that serialise work on these distinct ids of the project, sorted. */
export function distinctIdLockKeys(projectId: number, distinctIds: Iterable<string>): bigint[] {
  return advisoryLockKeys(`${LOCK_NAMESPACE}${projectId}:`, distinctIds);
}
