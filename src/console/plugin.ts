/**
 * Serves the web console (web/dist, built by scripts/console-build.mjs) at `/`, on the same origin
 * as the API. Hashed assets under /assets/ are cached for a year; everything else revalidates.
 * Any other GET outside /api/ answers index.html, so the console's own routes (/feature_flags/12)
 * load the app; unknown /api/ paths and missing assets keep the API's JSON 404. Its security
 * headers (CSP, no framing) are set for every answer by kernel/http/security-headers.ts.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { defineArea } from '../kernel/area.ts';
import { PACKAGE_ROOT } from '../db/package-root.ts';
import { IMMUTABLE_CACHE, REVALIDATE_CACHE } from './headers.ts';

export const DEFAULT_CONSOLE_DIR = path.join(PACKAGE_ROOT, 'web', 'dist');

/** Paths the console may serve as files: plain names, no dot segments (nothing hidden, no `..`). */
const SERVABLE = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const under = (folder: string, relative: string) => relative === folder || relative.startsWith(`${folder}/`);

function existingFile(root: string, relative: string): boolean {
  if (!SERVABLE.test(relative)) return false;
  try {
    return statSync(path.join(root, relative)).isFile();
  } catch {
    return false;
  }
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bellwether</title></head>
<body><h1>The console is not built</h1><p>The API is running. Build the console with
<code>npm run build:console</code> (it runs by itself at <code>npm install</code> and <code>npm start</code>), then reload.</p></body></html>`;

export function consoleRoutes(options: { root?: string } = {}) {
  const root = options.root ?? DEFAULT_CONSOLE_DIR;
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(fastifyStatic, { root, serve: false, preCompressed: true, dotfiles: 'deny' });

    const sendIndex = (reply: FastifyReply) => {
      if (!existsSync(path.join(root, 'index.html'))) {
        return reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_PAGE);
      }
      return reply.header('cache-control', REVALIDATE_CACHE).sendFile('index.html', { cacheControl: false });
    };

    app.get('/*', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const relative = (request.params as { '*': string })['*'];
      if (under('api', relative)) return reply.callNotFound();
      if (under('assets', relative)) {
        if (!existingFile(root, relative)) return reply.callNotFound();
        return reply.header('cache-control', IMMUTABLE_CACHE).sendFile(relative, { cacheControl: false });
      }
      if (relative !== '' && relative !== 'index.html' && existingFile(root, relative)) {
        return reply.header('cache-control', REVALIDATE_CACHE).sendFile(relative, { cacheControl: false });
      }
      return sendIndex(reply);
    });
  };
}

export interface ConsoleOptions {
  /** The built console to serve at `/`; default web/dist. */
  consoleDir?: string;
}

/** Registered last: its `/*` answers every GET no other route takes. */
export const webConsole = defineArea<ConsoleOptions>('console', ['kernel'], async (app, options) => {
  await app.register(consoleRoutes({ root: options.consoleDir }));
});
