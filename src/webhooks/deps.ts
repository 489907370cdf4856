import type { Kernel } from '../kernel/deps.ts';
import type { SecretBox } from './secrets.ts';

export interface WebhookDeps extends Kernel {
  secrets: SecretBox;
  allowedHosts: ReadonlySet<string>;
  /** Resolves host names (the system's resolver unless a test gives one). */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
  /** Tells this process's worker that something was written to the outbox. */
  wake: () => void;
}
