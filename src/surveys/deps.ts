import type { PlatformDeps } from '../deps.ts';
import type { ProjectTokens } from '../events/ingestion/tokens.ts';
import type { FlagCache } from '../flags/cache.ts';

/** What the survey area is given: the platform's, the flag cache (owned flags) and project tokens (the feed). */
export interface SurveyDeps extends PlatformDeps {
  flagCache: FlagCache;
  projectTokens: ProjectTokens;
}
