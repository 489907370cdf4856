/**
 * Stored persons for the SDK's flag evaluation, kept in memory: a distinct id's person and their
 * properties, read once and served until the person changes, so that `/flags` of a known person
 * costs no round trip (DESIGN: hot read paths never query per request).
 *
 * Currency: ingestion, the only writer of persons, publishes a `persons` change notice with the
 * ids of the stored persons each batch changed or merged away, on the batch's own transaction
 * (events/pipeline.ts); every process drops those persons' entries when it hears it, so an SDK
 * answer lags a person change by the notice's delay only. Entries are served and kept only while
 * every change is heard (`ChangeBus.hearsEveryChange`); a lost notice connection empties the cache.
 * A read that raced with a notice of its project is served but not kept. Only found persons are
 * kept: a distinct id without a person is read every time (its first event creates one).
 */
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { BoundedCache } from '../kernel/bounded-cache.ts';
import type { ReadHandle } from '../db/pool.ts';
import { loadPerson, type PersonRow } from './store.ts';

export interface PersonCacheOptions {
  /** Persons kept at most (least recently used go first). */
  max?: number;
  /** How long an entry is served at most (ms), notices or not. */
  ttlMs?: number;
}

interface Entry {
  projectId: number;
  person: PersonRow;
}

const keyOf = (projectId: number, distinctId: string) => `${projectId}\u0000${distinctId}`;
const personKeyOf = (projectId: number, personId: number) => `${projectId}:${personId}`;

export class PersonCache {
  private readonly entries: BoundedCache<Entry>;
  /** project:person id → the keys of that person's distinct ids in `entries`. */
  private readonly byPerson = new Map<string, Set<string>>();
  /** Moved by every notice about a project's persons, and for all projects on a resync. */
  private readonly generations = new Map<number, number>();
  private epoch = 0;

  constructor(
    private readonly bus: ChangeBus,
    options: PersonCacheOptions = {},
  ) {
    this.entries = new BoundedCache<Entry>({
      max: options.max ?? 20_000,
      ttlMs: options.ttlMs ?? 10 * 60_000,
      metricName: 'sdk_persons',
      onRemove: (key, entry) => this.unindex(key, entry),
    });
    bus.subscribe((change) => {
      if (change.kind === 'persons') this.changed(change.projectId, change.ids);
      else if (change.kind === 'project') this.changed(change.projectId, undefined);
    });
    bus.onResync(() => this.clear());
  }

  /** The person of `distinctId` (null fields when there is none), from memory when current. */
  async person(db: ReadHandle, projectId: number, distinctId: string): Promise<PersonRow> {
    const trusted = this.bus.hearsEveryChange;
    const key = keyOf(projectId, distinctId);
    if (trusted) {
      const hit = this.entries.get(key);
      if (hit !== undefined) return hit.value.person;
    }
    const epoch = this.epoch;
    const generation = this.generations.get(projectId) ?? 0;
    const person = await loadPerson(db, projectId, distinctId);
    const unchanged = epoch === this.epoch && generation === (this.generations.get(projectId) ?? 0);
    if (trusted && unchanged && this.bus.hearsEveryChange && person.person_id !== null) this.keep(key, projectId, person);
    return person;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byPerson.clear();
  }

  private keep(key: string, projectId: number, person: PersonRow): void {
    if (person.properties !== null) Object.freeze(person.properties);
    this.entries.set(key, { projectId, person });
    const personKey = personKeyOf(projectId, person.person_id!);
    let keys = this.byPerson.get(personKey);
    if (keys === undefined) this.byPerson.set(personKey, (keys = new Set()));
    keys.add(key);
  }

  private unindex(key: string, entry: Entry): void {
    const personKey = personKeyOf(entry.projectId, entry.person.person_id!);
    const keys = this.byPerson.get(personKey);
    if (keys === undefined) return;
    keys.delete(key);
    if (keys.size === 0) this.byPerson.delete(personKey);
  }

  /** Persons of the project changed: `ids`, or any when absent. */
  private changed(projectId: number, ids: readonly number[] | undefined): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    if (ids === undefined) {
      const prefix = `${projectId}:`;
      for (const [personKey, keys] of [...this.byPerson]) {
        if (personKey.startsWith(prefix)) for (const key of [...keys]) this.entries.delete(key);
      }
      return;
    }
    for (const id of ids) {
      const keys = this.byPerson.get(personKeyOf(projectId, id));
      if (keys !== undefined) for (const key of [...keys]) this.entries.delete(key);
    }
  }
}
