import type { Effect, UnitOfWork } from './unit-of-work.ts';

/**
 * Runs `work` inside `unit` on a savepoint, with a unit of its own whose effects reach `unit` only
 * if the work succeeds. On failure the work's statements and effects are gone and the transaction
 * goes on (to record the failure); answers the error, or null.
 */
export async function onSavepoint(unit: UnitOfWork, work: (inner: UnitOfWork) => Promise<void>): Promise<unknown> {
  const effects: Effect[] = [];
  const inner: UnitOfWork = { client: unit.client, afterCommit: (effect) => effects.push(effect) };
  await unit.client.query('SAVEPOINT work');
  try {
    await work(inner);
  } catch (error) {
    await unit.client.query('ROLLBACK TO SAVEPOINT work');
    return error ?? new Error('failed');
  }
  await unit.client.query('RELEASE SAVEPOINT work');
  for (const effect of effects) unit.afterCommit(effect);
  return null;
}
