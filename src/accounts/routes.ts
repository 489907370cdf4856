import type { FastifyInstance } from 'fastify';
import type { PlatformDeps } from '../deps.ts';
import { inviteRoutes } from './invites/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { personalApiKeyRoutes } from './personal-api-keys/routes.ts';
import { projectRoutes } from './projects/routes.ts';
import { userRoutes } from './users/routes.ts';

/** Organizations and their members and invites, projects, users and personal API keys. */
export function platformRoutes(deps: PlatformDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(userRoutes(deps));
    await app.register(organizationRoutes(deps));
    await app.register(memberRoutes(deps));
    await app.register(inviteRoutes(deps));
    await app.register(projectRoutes(deps));
    await app.register(personalApiKeyRoutes(deps));
  };
}
