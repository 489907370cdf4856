import type { PlatformDeps } from '../deps.ts';
import type { FlagCache } from './cache.ts';

/** What the flag routes and actions are given: the platform's, and this process's flag cache. */
export interface FlagDeps extends PlatformDeps {
  flagCache: FlagCache;
}
