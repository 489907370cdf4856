import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { LoginMethods } from '../api/types.ts';

/** Single sign-on and e-mailed resets, as this server is configured. */
export function useLoginMethods() {
  return useQuery({
    queryKey: ['login-methods'],
    queryFn: ({ signal }) => api.get<LoginMethods>('/api/login/methods/', signal),
    staleTime: Infinity,
  });
}

/** Why single sign-on did not sign the person in (the callback's `sso_error`), in their words. */
const SSO_ERRORS: Record<string, string> = {
  invalid_state: 'That sign-in expired or was already used. Start again.',
  denied: 'The sign-in provider did not sign you in.',
  provider_unavailable: 'The sign-in provider cannot be reached right now. Try again in a few minutes.',
  rejected: 'The sign-in provider refused this sign-in. Start again.',
  invalid_token: "The sign-in provider's answer could not be verified. Ask your administrator to check the single sign-on settings.",
  email_unverified: 'Your e-mail address is not verified with the sign-in provider.',
  domain_not_allowed: 'Accounts of your e-mail domain cannot sign in here.',
  no_organization: 'This server has no organization to join yet.',
};

export function ssoErrorMessage(search: string): string | null {
  const reason = new URLSearchParams(search).get('sso_error');
  if (reason === null) return null;
  return SSO_ERRORS[reason] ?? 'Single sign-on did not work. Try again.';
}
