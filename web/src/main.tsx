import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { isApiError } from './api/errors.ts';
import { App } from './app/App.tsx';
import { fetchFirstScreen } from './app/first-screen.ts';
import { ToastProvider } from './ui/Toast.tsx';
import './styles/tokens.css';
import './styles/base.css';
import './ui/ui.css';
import './shell/layout.css';
import './flags/flags.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network failure or a 5xx may.
      retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status < 500),
      staleTime: 10_000,
      refetchOnWindowFocus: true,
    },
  },
});

fetchFirstScreen(queryClient, window.location);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <App />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
