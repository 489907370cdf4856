import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { checkSameOrigin } from '../auth/csrf.ts';
import { PASSWORD_MAX_LENGTH } from '../auth/password-rules.ts';
import { setSessionCookies } from '../auth/session-cookies.ts';
import { MemberParams } from '../members/schemas.ts';
import { EMAIL_MAX_LENGTH, LoginSuccess } from '../sessions/schemas.ts';
import { publicBaseUrl } from '../sessions/settings.ts';
import { completePasswordReset, makeResetLink, requestPasswordReset } from './service.ts';

const sessions = routeOptions(['sessions']);
const platform = routeOptions(['platform']);

/** "Forgot password?" (`/api/reset/`), its link's use, and reset links made by admins; see docs/accounts.md. */
export function passwordResetRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/api/reset',
      sessions.open('Forgot password: mails a single-use reset link (valid 1 hour) when the address has an account', {
        description:
          'The same 204 whether the address has an account or not. Throttled like sign-in (429 with `Retry-After`). ' +
          'Without SMTP: 400 `email_not_configured` (an admin makes a reset link instead).',
        body: Type.Object({ email: Type.String({ maxLength: EMAIL_MAX_LENGTH }) }),
        response: { 204: Type.Null({ description: 'Sent, if the address has an account.' }) },
      }),
      async (request, reply) => {
        checkSameOrigin(request, deps.accounts.siteUrl);
        await requestPasswordReset(deps, request.body.email, request.ip, publicBaseUrl(request, deps.accounts.siteUrl));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/api/reset/complete',
      sessions.open("Sets a new password with a reset link's token: ends every session of the person and signs this browser in", {
        body: Type.Object({
          token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the reset link (after `#token=`).' }),
          password: Type.String({ maxLength: PASSWORD_MAX_LENGTH }),
        }),
        response: { 200: LoginSuccess },
      }),
      async (request, reply) => {
        checkSameOrigin(request, deps.accounts.siteUrl);
        const session = await completePasswordReset(deps, request.body.token, request.body.password);
        setSessionCookies(request, reply, session);
        return { success: true as const };
      },
    );

    app.post(
      '/api/organizations/:organization_id/members/:user_uuid/password_reset_link',
      platform.scoped(
        'organization_member:write',
        'Make a single-use password reset link (1 hour) for a member, to hand over (admins and owners; not for someone above them)',
        { params: MemberParams, response: { 201: Type.Object({ url: Type.String(), expires_at: Type.String({ format: 'date-time' }) }) } },
      ),
      async (request, reply) => {
        const link = await makeResetLink(
          deps,
          request.principal,
          request.params.organization_id,
          request.params.user_uuid,
          publicBaseUrl(request, deps.accounts.siteUrl),
        );
        return reply.code(201).send(link);
      },
    );
  };
}
