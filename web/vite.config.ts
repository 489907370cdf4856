// Builds the console into web/dist (scripts/console-build.mjs runs it; the service serves the
// result at /). `npm run dev:console` serves the same app with hot reload and forwards API calls
// to a running service (BELLWETHER_URL, default http://127.0.0.1:8000).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const service = process.env.BELLWETHER_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Modern browsers only: no inline polyfill script (the Content-Security-Policy forbids inline scripts).
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    // The build takes seconds; rolldown's note about which plugin took how long is noise at install.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    // The console imports the filter vocabulary from the service's src/targeting.
    fs: { allow: ['..'] },
    proxy: { '/api': service },
  },
});
