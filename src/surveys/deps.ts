import type { Authenticator } from '../accounts/auth/authenticator.ts';
import type { ProjectTokens } from '../public/tokens.ts';
import type { FlagCache } from '../flags/cache.ts';
import type { Kernel } from '../kernel/deps.ts';

/**
 * What the survey area is given: the kernel's, the flag cache (owned flags), project tokens (the
 * feed) and project reach (duplication to other projects).
 */
export interface SurveyDeps extends Kernel {
  flagCache: FlagCache;
  projectTokens: ProjectTokens;
  authenticator: Authenticator;
}
