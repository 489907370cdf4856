/**
 * What every area's routes and services may be given: the database (reads on the pool, writes in
 * units of work), the change notices, authentication and the account settings. An area that needs
 * more (a cache of its own) declares it in its own folder; app.ts composes them all. This module
 * imports no product folder, so that areas depend on it and never on app.ts.
 */
import type { Pool } from './db/pool.ts';
import type { UnitsOfWork } from './db/unit-of-work.ts';
import type { Authenticator } from './accounts/auth/authenticator.ts';
import type { ChangeBus } from './kernel/changes/bus.ts';
import type { AccountSettings } from './accounts/sessions/settings.ts';

export interface PlatformDeps {
  pool: Pool;
  /** Every write runs in one of these units of work (effects after commit, nothing on rollback). */
  units: UnitsOfWork;
  authenticator: Authenticator;
  bus: ChangeBus;
  accounts: AccountSettings;
}
