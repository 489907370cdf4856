/**
 * What posthog-js reads to show surveys, public and open to
 * every origin:
 *
 * - `GET /api/surveys/?token=<phc_…>`: the project's feed, rendered once per change (SurveyFeedCache),
 *   with an ETag (`If-None-Match` → 304). No token → 401 `not_authenticated`; unknown → 401
 *   `authentication_failed`.
 * - `GET /array/<token>/config` and `/array/<token>/config.js`: the remote config posthog-js needs
 *   before it loads surveys at all (remote-config.ts). Unknown token → 404.
 */
import type { FastifyInstance } from 'fastify';
import type { SurveyDeps } from '../deps.ts';
import { orNotFound } from '../../kernel/errors.ts';
import { sendRevalidated, weakEtag } from '../../kernel/http/etag.ts';
import { SurveyFeedCache } from './cache.ts';
import { remoteConfig, remoteConfigScript } from './remote-config.ts';
import { FeedQuery, FeedResponse, RemoteConfigParams, RemoteConfigResponse } from './schemas.ts';

export const FEED_URL = '/api/surveys';
export const REMOTE_CONFIG_URL = '/array/:token/config';
export const REMOTE_CONFIG_SCRIPT_URL = '/array/:token/config.js';
const TAGS = ['surveys'];
const security = [{}];

export function surveyFeedRoutes(deps: SurveyDeps) {
  const cache = new SurveyFeedCache(deps.pool, deps.bus);
  const tokens = deps.projectTokens;

  const projectOfPathToken = async (token: string): Promise<number> => {
    const projectId = orNotFound(await tokens.projectId(token));
    return projectId;
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      FEED_URL,
      {
        config: { public: { token: ['query'], cors: true } },
        schema: {
          tags: TAGS,
          summary: 'The surveys posthog-js shows (public)',
          description:
            'Authenticated by the project token (`?token=<phc_…>`). Every survey that is not archived, drafts and ' +
            'finished ones too (posthog-js decides from `start_date`/`end_date`). `ETag` + `If-None-Match` → 304.',
          security,
          querystring: FeedQuery,
          response: { 200: FeedResponse },
        },
      },
      async (request, reply) => {
        const feed = await cache.feed(request.publicProject);
        return sendRevalidated(request, reply, feed.json, feed.etag);
      },
    );

    for (const [url, script] of [
      [REMOTE_CONFIG_URL, false],
      [REMOTE_CONFIG_SCRIPT_URL, true],
    ] as const) {
      app.get(
        url,
        {
          config: { public: { cors: true } },
          schema: {
            tags: TAGS,
            summary: script ? 'posthog-js remote config as a script (public)' : 'posthog-js remote config (public)',
            description: 'The config posthog-js needs before it loads surveys; `surveys` is on while the project has one.',
            security,
            params: RemoteConfigParams,
            ...(script ? {} : { response: { 200: RemoteConfigResponse } }),
          },
        },
        async (request, reply) => {
          const { token } = request.params as { token: string };
          const projectId = await projectOfPathToken(token);
          const feed = await cache.feed(projectId);
          const config = remoteConfig(token, feed.surveyCount > 0);
          const body = script ? remoteConfigScript(token, config) : JSON.stringify(config);
          const contentType = script ? 'application/javascript; charset=utf-8' : 'application/json; charset=utf-8';
          return sendRevalidated(request, reply, body, weakEtag(body), contentType);
        },
      );
    }
  };
}
