/**
 * `POST /api/projects/{project_id}/feature_flags/playground/`: evaluate every flag (or the ones
 * named) for a distinct id and made-up person and group properties; nothing is read or stored.
 */
import type { FastifyInstance } from 'fastify';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import type { SdkDeps } from '../deps.ts';
import { playground, type PlaygroundInput } from '../playground.ts';
import { PlaygroundBody, PlaygroundResponse, ProjectParams } from '../schemas.ts';

const PLAYGROUND = '/playground';
const route = routeOptions(['feature_flags']);

export function playgroundRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post(
      PLAYGROUND,
      route.scoped('feature_flag:read', 'Evaluate flags for made-up properties', {
        description:
          'Evaluates every live flag (or `flag_keys`) for `distinct_id` with the person and group properties sent, and ' +
          'nothing stored: no stored person, no static cohort membership, no experience-continuity keys. Answers each ' +
          "flag's value, payload and the reason. Survey-owned flags are left out unless named.",
        params: ProjectParams, body: PlaygroundBody, response: { 200: PlaygroundResponse },
      }),
      async (request) => playground(await deps.cache.view(request.project.id), request.body as PlaygroundInput),
    );
    refuseOtherMethods(app, PLAYGROUND, ['POST']);
  };
}
