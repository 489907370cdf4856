import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FlagDeps } from '../deps.ts';
import { pluginJobs } from '../../kernel/jobs.ts';
import { presentCohort } from '../../cohorts/present.ts';
import { refuseOtherMethods, refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { toUserSummary } from '../../accounts/users/user-summary.ts';
import { parseFlagId } from '../routes.ts';
import { userBlastRadius } from './blast-radius.ts';
import { bulkKeys } from './bulk-keys.ts';
import { dependentsOf, remoteConfigOf, statusOf } from './read.ts';
import {
  ActionBody,
  BlastRadiusBody,
  BlastRadiusResponse,
  BulkKeysBody,
  BulkKeysResponse,
  DependentsResponse,
  FlagParams,
  IdOrKeyParams,
  PersonsServedResponse,
  ProjectParams,
  RemoteConfigResponse,
  StaticCohortResponse,
  StatusResponse,
  SuccessResponse,
} from './schemas.ts';
import { personsServed } from './persons-served.ts';
import { createStaticCohortForFlag } from './static-cohort.ts';
import { ensureUsageDashboard } from './usage-dashboard.ts';

const TAGS = ['feature_flags'];

/**
 * The flag actions create_static_cohort_for_flag, dashboard, enrich_usage_dashboard,
 * has_active_dependents, remote_config, status, persons_served, bulk_keys and user_blast_radius, at the flags' prefix
 * `/api/projects/:project_id/feature_flags`. Handlers parse and delegate.
 */
export function flagActionRoutes(deps: FlagDeps) {
  const { pool, flagCache } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    const { jobs, log } = pluginJobs(root);
    const cohortDeps = { pool, units: deps.units, bus: deps.bus, jobs, log, flagCache };

    for (const action of ['create_static_cohort_for_flag', 'dashboard', 'enrich_usage_dashboard', 'has_active_dependents']) {
      refuseOtherMethods(root, `/:id/${action}`, ['POST']);
    }
    refuseOtherMethodsOn(root, { '/:id/remote_config': ['GET'], '/:id/status': ['GET'], '/:id/persons_served': ['GET'], '/bulk_keys': ['POST'], '/user_blast_radius': ['POST'] });

    app.post(
      '/:id/create_static_cohort_for_flag',
      {
        config: { scope: 'feature_flag:write' },
        schema: {
          tags: TAGS,
          summary: 'Create a static cohort of the persons for whom the flag is on now',
          description:
            'Answers 200 (PostHog answers 201) with {"cohort": {...}}. Small projects are evaluated inside the request; larger ones in the background (is_calculating: true until done).',
          params: FlagParams,
          body: ActionBody,
          response: { 200: StaticCohortResponse },
        },
      },
      async (request) => {
        const cohort = await createStaticCohortForFlag(cohortDeps, request.project.id, parseFlagId(request.params.id), toUserSummary(request.principal.user));
        return { cohort: presentCohort(cohort) };
      },
    );

    for (const [action, enrich] of [
      ['dashboard', false],
      ['enrich_usage_dashboard', true],
    ] as const) {
      app.post(
        `/:id/${action}`,
        {
          config: { scope: 'feature_flag:write' },
          schema: {
            tags: TAGS,
            summary: enrich
              ? 'Add the enriched insights ($feature_view, $feature_interaction) to the usage dashboard, creating it if missing'
              : "Create the flag's usage dashboard if missing and ensure its insights (idempotent)",
            description: 'Errors answer 400 {"success": false, "error": "..."} (PostHog).',
            params: FlagParams,
            body: ActionBody,
            response: { 200: SuccessResponse },
          },
        },
        async (request) => {
          await ensureUsageDashboard(deps, {
            projectId: request.project.id,
            flagId: parseFlagId(request.params.id),
            actor: toUserSummary(request.principal.user),
            enrich,
            log: request.log,
          });
          return { success: true };
        },
      );
    }

    app.post(
      '/:id/has_active_dependents',
      {
        config: { scope: 'feature_flag:read' },
        schema: {
          tags: TAGS,
          summary: 'Whether other active flags depend on this flag, and which',
          params: FlagParams,
          body: ActionBody,
          response: { 200: DependentsResponse },
        },
      },
      async (request) => dependentsOf(pool, flagCache, request.project.id, parseFlagId(request.params.id)),
    );

    app.get(
      '/:id/remote_config',
      {
        config: { scope: 'feature_flag:read' },
        schema: {
          tags: TAGS,
          summary: 'The payload of a remote-configuration flag (id or key in the path)',
          params: IdOrKeyParams,
          response: { 200: RemoteConfigResponse },
        },
      },
      async (request, reply) => sendJson(reply, JSON.stringify(await remoteConfigOf(flagCache, request.project.id, request.params.id))),
    );

    app.get(
      '/:id/status',
      {
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: "The flag's status and why", params: FlagParams, response: { 200: StatusResponse } },
      },
      async (request) => statusOf(flagCache, request.project.id, parseFlagId(request.params.id)),
    );

    app.get(
      '/:id/persons_served',
      {
        config: { scope: 'feature_flag:read' },
        schema: {
          tags: TAGS,
          summary: 'How many distinct persons the flag served in the last 24 hours (Bellwether; the console asks before turning such a flag off)',
          params: FlagParams,
          response: { 200: PersonsServedResponse },
        },
      },
      async (request) => personsServed(pool, flagCache, request.project.id, parseFlagId(request.params.id)),
    );

    app.post(
      '/bulk_keys',
      {
        config: { scope: 'feature_flag:read' },
        schema: {
          tags: TAGS,
          summary: 'Keys of flags by id: {"ids": [...]} → {"keys": {"<id>": "<key>"}}',
          description: 'All ids invalid → 400 {"error": "Invalid flag IDs provided"} (PostHog).',
          params: ProjectParams,
          body: BulkKeysBody,
          response: { 200: BulkKeysResponse },
        },
      },
      async (request) => bulkKeys(pool, request.project.id, request.body.ids),
    );

    app.post(
      '/user_blast_radius',
      {
        config: { scope: 'feature_flag:read' },
        schema: {
          tags: TAGS,
          summary: "How many of the project's persons (or groups) a condition set matches",
          params: ProjectParams,
          body: BlastRadiusBody,
          response: { 200: BlastRadiusResponse },
        },
      },
      async (request) => userBlastRadius(pool, flagCache, request.project.id, request.body),
    );
  };
}
