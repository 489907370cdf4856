import type { Kernel } from '../kernel/deps.ts';
import type { Mailer } from '../kernel/mail/mailer.ts';
import type { Authenticator } from './auth/authenticator.ts';
import type { AccountSettings } from './sessions/settings.ts';

/** What the accounts area's routes and services are given: the kernel's, authentication, the account settings and the mailer. */
export interface AccountsDeps extends Kernel {
  authenticator: Authenticator;
  accounts: AccountSettings;
  /** The kernel's SMTP sender; null: no e-mail (links are handed over by hand). */
  mailer: Mailer | null;
}
