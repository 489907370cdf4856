import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';

export const LoginMethods = Type.Object({
  sso: Type.Union(
    [
      Type.Object({
        button_text: Type.String({ description: 'OIDC_BUTTON_TEXT.' }),
        login_url: Type.String({ description: 'Where the button leads (a redirect to the provider).' }),
        enforced_domains: Type.Array(Type.String(), { description: 'With OIDC_ENFORCED: the e-mail domains that cannot use passwords.' }),
      }),
      Type.Null(),
    ],
    { description: 'Single sign-on, when configured.' },
  ),
  password_reset_by_email: Type.Boolean({ description: 'SMTP is configured: "forgot password" mails a reset link.' }),
});

const route = routeOptions(['sessions']);

/** What the sign-in page offers: public, it tells nothing about accounts. */
export function loginMethodRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/login/methods',
      route.open('How people can sign in here: single sign-on, password reset by e-mail', { response: { 200: LoginMethods } }),
      async () => {
        const sso = deps.accounts.sso;
        return {
          sso: sso && {
            button_text: sso.buttonText,
            login_url: '/api/auth/oidc/login',
            enforced_domains: sso.enforced && sso.allowedDomains !== '*' ? sso.allowedDomains : [],
          },
          password_reset_by_email: deps.mailer !== null,
        };
      },
    );
  };
}
