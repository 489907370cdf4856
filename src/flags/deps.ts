import type { Authenticator } from '../accounts/auth/authenticator.ts';
import type { Kernel } from '../kernel/deps.ts';
import type { FlagCache } from './cache.ts';
import type { FlagEditGate } from './gate.ts';

/** What the flag routes and actions are given: the kernel's, this process's flag cache, and project reach (copy_flags). */
export interface FlagDeps extends Kernel {
  flagCache: FlagCache;
  authenticator: Authenticator;
  /** Gates on API edits (approvals), contributed by other areas. */
  gates: readonly FlagEditGate[];
}
