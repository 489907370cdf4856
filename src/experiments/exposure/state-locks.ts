/**
 * Serialises the writers of one (experiment, person) state: the exposure and the metric
 * aggregates are read, merged in JavaScript and written back, so two batches with events of the
 * same person must not interleave. An ingestion batch does not always hold its persons' locks (a
 * batch that changes no person takes none), so the state has locks of its own.
 * - Up to MAX_PAIR_LOCKS pairs: each experiment's lock in shared mode, then one lock per pair.
 * - More (a rebuild's page, a backfill): each experiment's lock in exclusive mode alone.
 * - Clearing an experiment's state (reset, rebuild, back to draft): its lock in exclusive mode.
 * Experiment locks always come first and in one order, so no two writers wait on each other in a cycle.
 */
import { advisoryLockKeys, takeAdvisoryLocks } from '../../db/advisory-locks.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

const NAMESPACE = 'bellwether:experiment-state:';
export const MAX_PAIR_LOCKS = 500;

export async function lockExperimentStates(db: WriteTx, experimentIds: Iterable<number>, pairKeys: readonly string[]): Promise<void> {
  const experiments = advisoryLockKeys(`${NAMESPACE}experiment:`, [...experimentIds].map(String));
  if (pairKeys.length > MAX_PAIR_LOCKS) {
    await takeAdvisoryLocks(db, experiments);
    return;
  }
  await takeAdvisoryLocks(db, advisoryLockKeys(`${NAMESPACE}pair:`, pairKeys), experiments);
}

/**
 * An experiment's lock alone, exclusive: a clear waits for the batches writing its state to commit,
 * and batches after it wait for the clear, so none writes back a row the clear deleted.
 */
export async function lockExperimentState(db: WriteTx, experimentId: number): Promise<void> {
  await takeAdvisoryLocks(db, advisoryLockKeys(`${NAMESPACE}experiment:`, [String(experimentId)]));
}
