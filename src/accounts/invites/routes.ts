import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import type { FastifyRequest } from 'fastify';
import { checkCsrf, checkSameOrigin } from '../auth/csrf.ts';
import type { SessionPrincipal } from '../auth/principal.ts';
import { sessionCookie, setSessionCookies } from '../auth/session-cookies.ts';
import { listPage, PaginationQuery } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { publicBaseUrl } from '../sessions/settings.ts';
import { UserSummary } from '../users/user-summary.ts';
import { CreateInviteBody, Invite, InviteList, InviteParams, SignupBody, SignupInfo, SignupParams } from './schemas.ts';
import { cancelInvite, createInvite, listOrganizationInvites } from './service.ts';
import { acceptInvite, describeInvite } from './signup.ts';

const route = routeOptions(['platform']);

/** Invites to an organization and the public sign-up that uses them up (docs/accounts.md). */
export function inviteRoutes(deps: AccountsDeps) {
  const baseUrl = (request: FastifyRequest) => publicBaseUrl(request, deps.accounts.siteUrl);
  /** The sign-up paths are public; a live session cookie, when there is one, says who opened the link. */
  const signedIn = async (request: FastifyRequest): Promise<SessionPrincipal | null> => {
    const cookie = sessionCookie(request);
    return cookie === undefined ? null : deps.authenticator.authenticateSession(cookie).catch(() => null);
  };
  const visitorOf = (principal: SessionPrincipal | null) => (principal ? { userId: principal.user.id, email: principal.user.email } : null);

  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/organizations/:organization_id/invites',
      route.scoped('organization_member:read', "List the organization's invites, expired ones included (admins and owners)", {
        params: OrganizationParams, querystring: PaginationQuery, response: { 200: InviteList },
      }),
      async (request) =>
        listPage(request, request.query, (page) => listOrganizationInvites(deps, request.principal, request.params.organization_id, page, baseUrl(request))),
    );

    app.post(
      '/api/organizations/:organization_id/invites',
      route.scoped('organization_member:write', 'Invite someone by e-mail address (admins and owners, at most at their own level); valid 3 days', {
        description:
          'No e-mail is sent: hand the person `invite_url`. An address that is a member already, or has a valid invite, ' +
          'is a 400 on `target_email`.',
        params: OrganizationParams, body: CreateInviteBody, response: { 201: Invite },
      }),
      async (request, reply) =>
        reply.code(201).send(await createInvite(deps, request.principal, request.params.organization_id, request.body, baseUrl(request))),
    );

    app.delete(
      '/api/organizations/:organization_id/invites/:invite_id',
      route.scoped('organization_member:write', 'Cancel an invite (admins and owners); its link stops working', {
        params: InviteParams, response: { 204: Type.Null({ description: 'Cancelled.' }) },
      }),
      async (request, reply) => {
        await cancelInvite(deps, request.principal, request.params.organization_id, request.params.invite_id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/api/signup/:invite_id',
      route.open('What an invite is for (public: the invite id is the secret)', {
        description:
          'Unknown, used or cancelled: 400 `invalid_input`; expired: 400 `expired`; an address with an account, not signed ' +
          'in as it: 400 `account_exists`; signed in as someone else: 400 `invalid_recipient`.',
        params: SignupParams, response: { 200: SignupInfo },
      }),
      async (request) => describeInvite(deps, request.params.invite_id, visitorOf(await signedIn(request))),
    );

    app.post(
      '/api/signup/:invite_id',
      route.open('Accept an invite: name and password; creates the account and signs it in (session and CSRF cookies)', {
        description:
          'Signed in as the invited address (with `X-CSRFToken`), the account joins the organization instead and no ' +
          'name or password is needed.',
        params: SignupParams, body: SignupBody, response: { 201: UserSummary },
      }),
      async (request, reply) => {
        const principal = await signedIn(request);
        if (principal) checkCsrf(request, principal);
        else checkSameOrigin(request, deps.accounts.siteUrl);
        const { user, session } = await acceptInvite(deps, request.params.invite_id, request.body, visitorOf(principal));
        if (session) setSessionCookies(request, reply, session);
        return reply.code(201).send(user);
      },
    );
  };
}
