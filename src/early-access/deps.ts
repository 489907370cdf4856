import type { FlagCache } from '../flags/cache.ts';
import type { Kernel } from '../kernel/deps.ts';

/** The kernel's, and the flag cache: every flag write goes through the flags writer. */
export interface EarlyAccessDeps extends Kernel {
  flagCache: FlagCache;
}
