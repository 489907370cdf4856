import type { FlagCache } from '../flags/cache.ts';
import type { Kernel } from '../kernel/deps.ts';
import type { ResultsCache } from './results/cache.ts';

/** What the experiments area is given: the kernel's, the flag cache (every flag write goes through the flags writer), its results cache. */
export interface ExperimentDeps extends Kernel {
  flagCache: FlagCache;
  results: ResultsCache;
}
