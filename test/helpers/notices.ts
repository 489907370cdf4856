import type { ReadHandle } from '../../src/db/pool.ts';
import { CHANGES_CHANNEL, type ChangeBus } from '../../src/kernel/changes/bus.ts';
import { eventually } from './eventually.ts';

/**
 * Resolves once `bus` has heard an `auth` notice sent now from another connection, as another
 * process would send it. PostgreSQL delivers the notices of one channel in the order they were
 * sent, so by then every notice sent before it has been heard (or, being the bus's own, ignored):
 * what has not happened yet is not waiting in a notice.
 */
export async function noticesHeard(bus: ChangeBus, db: ReadHandle): Promise<void> {
  let heard = false;
  bus.subscribe((change) => {
    if (change.kind === 'auth') heard = true;
  });
  await db.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify({ origin: `test-${Math.random()}`, change: { kind: 'auth' } })]);
  await eventually('the notice sent after the others, heard', async () => heard);
}
