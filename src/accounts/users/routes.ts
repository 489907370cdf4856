import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AccountsDeps } from '../deps.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { Me, UpdateMeBody } from './schemas.ts';
import { me } from './service.ts';
import { updateMe } from './update-me.ts';

/** The caller's own account. */
const route = routeOptions(['platform'], { account: true });

export function userRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/users/@me',
      route.scoped('user:read', 'The caller, with their current organization and project', { response: { 200: Me } }),
      async (request) => me(deps, request.principal),
    );

    app.patch(
      '/api/users/@me',
      route.scoped('user:write', 'Change your name, e-mail or password', {
        description:
          'A new `password` needs `current_password` (when a password is set) and follows the password rules; it ends ' +
          'your other sessions. Wrong current passwords count toward sign-in throttling (429).',
        body: UpdateMeBody, response: { 200: Me },
      }),
      async (request) => updateMe(deps, request.principal, request.body, request.ip),
    );
  };
}
