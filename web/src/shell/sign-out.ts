import { useMutation } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import { useToast } from '../ui/Toast.tsx';
import { useResetSession } from './session.ts';

/** Ends the session, forgets everything cached for it and goes back to the start (the sign-in page). */
export function useSignOut() {
  const reset = useResetSession();
  const [, navigate] = useLocation();
  const toast = useToast();
  return useMutation({
    mutationFn: () => api.post('/api/logout/'),
    onSettled: async (_data, error) => {
      if (error) toast.show(`Signing out failed: ${errorMessage(error)}`, 'error');
      await reset();
      navigate('~/');
    },
  });
}
