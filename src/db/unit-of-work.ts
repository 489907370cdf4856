import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool, ReadHandle } from './pool.ts';
import { withTransaction } from './transaction.ts';
import { isRetryableConflict } from './unavailable.ts';

declare const inUnit: unique symbol;
declare const onPool: unique symbol;

/**
 * A unit of work's transaction: what every write takes. Only this module makes one (the brand
 * exists in no value), so the compiler refuses a write handed the pool or a read snapshot. It
 * reads too.
 */
export type WriteTx = ReadHandle & { readonly [inUnit]: true };

/**
 * A write that is its own statement on the pool, outside any unit (nothing rolls back with it, no
 * effects after commit). Made only by `poolWrite` below, so each such write shows it in its
 * signature and each caller names it.
 */
export type PoolWrite = ReadHandle & { readonly [onPool]: true };

/** A write that runs in a unit, or on its own on the pool. */
export type WriteHandle = WriteTx | PoolWrite;

/**
 * The pool, for the documented writes outside a unit of work: the batched `last_called_at`
 * flush, the evaluation path's hash keys, the authenticator's last-used touches, job bookkeeping,
 * the sign-in link CLI's token, webhook delivery's claims and records (each one statement).
 */
export function poolWrite(pool: Pool): PoolWrite {
  return pool as unknown as PoolWrite;
}

/** Something this process does once a write has committed (a cache update, a change delivered here). */
export type Effect = () => void;

/**
 * One write: its transaction's connection, and the effects it collects. The effects run after
 * COMMIT, in the order they were added, once; a rollback drops them.
 */
export interface UnitOfWork {
  readonly client: WriteTx;
  afterCommit(effect: Effect): void;
  /**
   * What the app's areas contributed to `point` (the kernel's extension points): a writer offers an
   * in-transaction step this way (the activity writer lets an area add an outbox row beside each
   * entry, in this transaction).
   */
  contributions<T>(point: ContributionPoint<T>): readonly T[];
  /**
   * Work that runs inside the transaction after everything else, just before COMMIT, once per
   * `key` (a later call with the same key is ignored): a counter bumped once per unit, its row
   * lock held as briefly as possible.
   */
  beforeCommit(key: string, work: (client: WriteTx) => Promise<void>): void;
}

/** An extension point as this floor sees it (the kernel's `ExtensionPoint`). */
export interface ContributionPoint<T> {
  readonly name: string;
  /** Never set: carries the contributions' type. */
  readonly contributionType?: T;
}

/** Where a unit finds the app's contributions (the kernel's `Extensions`). */
export interface ContributionSource {
  list<T>(point: ContributionPoint<T>): readonly T[];
}

const NO_CONTRIBUTIONS: ContributionSource = { list: () => [] };

/** The unit whose transaction runs on `client`, if any: for writers handed only a connection. */
const runningUnits = new WeakMap<object, UnitOfWork>();

export function unitRunningOn(client: unknown): UnitOfWork | undefined {
  return typeof client === 'object' && client !== null ? runningUnits.get(client) : undefined;
}

export interface UnitOfWorkOptions {
  /** The statement that opens the transaction (an isolation level, `SET LOCAL` settings). */
  begin?: string;
  /**
   * The whole unit may run again: on a serialization failure or a deadlock it is retried (with a
   * short jittered wait) up to `MAX_ATTEMPTS` times. Only for work whose every step is inside the
   * transaction (nothing sent, nothing kept from a failed attempt).
   */
  retry?: boolean;
  /** Other failures worth a rerun of a retryable unit (ingestion: a concurrent insert of the same person). */
  retryAlso?: (error: unknown) => boolean;
  /**
   * A unit already open: the work joins it (its statements in that transaction, its effects after
   * that unit commits) instead of opening one of its own. For a write made of several services' writes.
   */
  within?: UnitOfWork;
}

export const MAX_ATTEMPTS = 3;

/** The wait before attempt `attempt` (2, 3, …): 5–15 ms, then 10–30 ms, … */
export function retryDelay(attempt: number, random = Math.random): number {
  const base = 10 * 2 ** Math.max(0, attempt - 2);
  return Math.round(base / 2 + random() * base);
}

/** Told of an effect that threw after its write committed: the write stands, the failure is logged. */
export type EffectFailureLog = (error: unknown) => void;

class CollectingUnit implements UnitOfWork {
  readonly effects: Effect[] = [];
  private readonly finalWork = new Map<string, (client: WriteTx) => Promise<void>>();
  readonly client: WriteTx;

  constructor(
    client: ReadHandle,
    private readonly source: ContributionSource,
  ) {
    this.client = client as unknown as WriteTx;
  }

  contributions<T>(point: ContributionPoint<T>): readonly T[] {
    return this.source.list(point);
  }

  afterCommit(effect: Effect): void {
    this.effects.push(effect);
  }

  beforeCommit(key: string, work: (client: WriteTx) => Promise<void>): void {
    if (!this.finalWork.has(key)) this.finalWork.set(key, work);
  }

  async finish(): Promise<void> {
    for (const work of this.finalWork.values()) await work(this.client);
  }
}

/** Runs units of work on one pool; the one way this process writes. */
export class UnitsOfWork {
  constructor(
    readonly pool: Pool,
    private readonly logEffectFailure: EffectFailureLog = () => {},
    private readonly source: ContributionSource = NO_CONTRIBUTIONS,
  ) {}

  async run<T>(work: (unit: UnitOfWork) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    if (options.within) return work(options.within);
    for (let attempt = 1; ; attempt++) {
      let unit: CollectingUnit | undefined;
      let result: T;
      try {
        result = await withTransaction(
          this.pool,
          async (client) => {
            const opened = new CollectingUnit(client, this.source);
            unit = opened;
            runningUnits.set(client, opened);
            try {
              const done = await work(opened);
              await opened.finish();
              return done;
            } finally {
              runningUnits.delete(client);
            }
          },
          options.begin,
        );
      } catch (error) {
        const retryable = options.retry === true && (isRetryableConflict(error) || options.retryAlso?.(error) === true);
        if (!retryable || attempt >= MAX_ATTEMPTS) throw error;
        await sleep(retryDelay(attempt + 1));
        continue;
      }
      for (const effect of unit?.effects ?? []) this.runEffect(effect);
      return result;
    }
  }

  private runEffect(effect: Effect): void {
    try {
      effect();
    } catch (error) {
      this.logEffectFailure(error);
    }
  }
}
