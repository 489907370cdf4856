import type { Kernel } from '../kernel/deps.ts';
import type { Authenticator } from './auth/authenticator.ts';
import type { AccountSettings } from './sessions/settings.ts';

/** What the accounts area's routes and services are given: the kernel's, authentication and the account settings. */
export interface AccountsDeps extends Kernel {
  authenticator: Authenticator;
  accounts: AccountSettings;
}
