import type { Effect, UnitOfWork, WriteTx } from './unit-of-work.ts';

/**
 * Runs `work` inside `unit` on a savepoint, with a unit of its own whose effects reach `unit` only
 * if the work succeeds. On failure the work's statements and effects are gone and the transaction
 * goes on (to record the failure); answers the error, or null.
 */
export async function onSavepoint(unit: UnitOfWork, work: (inner: UnitOfWork) => Promise<void>): Promise<unknown> {
  const effects: Effect[] = [];
  const finalWork: Array<[string, (client: WriteTx) => Promise<void>]> = [];
  const inner: UnitOfWork = {
    client: unit.client,
    afterCommit: (effect) => void effects.push(effect),
    contributions: (point) => unit.contributions(point),
    beforeCommit: (key, work) => void finalWork.push([key, work]),
  };
  await unit.client.query('SAVEPOINT work');
  try {
    await work(inner);
  } catch (error) {
    await unit.client.query('ROLLBACK TO SAVEPOINT work');
    return error ?? new Error('failed');
  }
  await unit.client.query('RELEASE SAVEPOINT work');
  for (const effect of effects) unit.afterCommit(effect);
  for (const [key, work] of finalWork) unit.beforeCommit(key, work);
  return null;
}
