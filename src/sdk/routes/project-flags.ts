/**
 * Flag actions that evaluate with the stored person:
 * `GET /api/projects/{project_id}/feature_flags/evaluation_reasons?distinct_id=&groups=` and
 * `GET …/feature_flags/my_flags?groups=` (the key owner's distinct id). Both use the context
 * loader of `/flags` with nothing sent but the groups.
 */
import type { FastifyInstance } from 'fastify';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { requiredField, validationError } from '../../kernel/errors.ts';
import { minimalFlag } from '../definitions.ts';
import type { SdkDeps } from '../deps.ts';
import { evaluateFor, flagValue } from '../evaluate.ts';
import { readGroups } from '../flags-request.ts';
import {
  EvaluationReasonsQuery,
  EvaluationReasonsResponse,
  MyFlagsQuery,
  ProjectParams,
  TestEvaluationBody,
  TestEvaluationResponse,
  type EvaluationReason,
} from '../schemas.ts';
import { testEvaluation, type TestEvaluationBody as TestEvaluationInput } from '../test-evaluation.ts';
import { parseFlagId } from '../../flags/routes.ts';
import { notFound } from '../../kernel/errors.ts';
import { Type } from 'typebox';

const route = routeOptions(['feature_flags']);
/** Under the project's `/feature_flags` (kernel/http/project-scope.ts). */
const EVALUATION_REASONS = '/evaluation_reasons';
const MY_FLAGS = '/my_flags';
const TEST_EVALUATION = '/:id/test_evaluation';

/** `groups` of the query string: a JSON object of group type → key. */
function groupsParam(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw validationError('groups must be a JSON object, e.g. {"company": "acme"}.', 'groups', 'invalid_input');
  }
  return readGroups(parsed);
}

export function projectFlagRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      EVALUATION_REASONS,
      route.scoped('feature_flag:read', 'How every flag evaluates for one person', {
        description:
          'Answers `{key: {value, evaluation: {reason, condition_index}}}` for every live flag, evaluated with the stored ' +
          'person and group properties; disabled flags have value false and reason `disabled`.',
        params: ProjectParams, querystring: EvaluationReasonsQuery, response: { 200: EvaluationReasonsResponse },
      }),
      async (request, reply) => {
        const query = request.query as { distinct_id?: string; groups?: string };
        const distinctId = typeof query.distinct_id === 'string' ? query.distinct_id : '';
        if (distinctId === '') throw requiredField('distinct_id');
        const groups = groupsParam(query.groups);
        const view = await deps.cache.currentView(request.project.id);
        const evaluation = await evaluateFor(deps.pool, view, { distinctId, groups }, {}, request.log);
        const reasons: Record<string, EvaluationReason> = {};
        for (const { live, result } of evaluation.flags) {
          reasons[live.record.key] = live.record.active
            ? { value: flagValue(result), evaluation: { reason: result.reason.code, condition_index: result.reason.condition_index } }
            : { value: false, evaluation: { reason: 'disabled', condition_index: null } };
        }
        return sendJson(reply, JSON.stringify(reasons));
      },
    );
    refuseOtherMethods(app, EVALUATION_REASONS, ['GET']);

    app.get(
      MY_FLAGS,
      route.scoped('feature_flag:read', "Every flag's value for the key's owner", {
        description:
          "Evaluates every live flag for the distinct id of the user the key belongs to (stored person properties): " +
          '`[{feature_flag: <minimal flag>, value}]`, newest first.',
        params: ProjectParams, querystring: MyFlagsQuery,
      }),
      async (request, reply) => {
        const groups = groupsParam((request.query as { groups?: string }).groups);
        const view = await deps.cache.currentView(request.project.id);
        const distinctId = request.principal.user.distinct_id;
        const evaluation = await evaluateFor(deps.pool, view, { distinctId, groups }, {}, request.log);
        const items = evaluation.flags.map(({ live, result }) => ({ feature_flag: minimalFlag(live), value: flagValue(result) }));
        return sendJson(reply, JSON.stringify(items));
      },
    );
    refuseOtherMethods(app, MY_FLAGS, ['GET']);

    app.post(
      TEST_EVALUATION,
      route.scoped('feature_flag:read', 'How this flag evaluates for one person now (by distinct_id or person_id)', {
        params: Type.Object({ project_id: Type.String(), id: Type.String() }), body: TestEvaluationBody, response: { 200: TestEvaluationResponse },
      }),
      async (request) => {
        const flagId = parseFlagId((request.params as { id: string }).id);
        const view = await deps.cache.currentView(request.project.id);
        const live = view.flags.find((flag) => flag.record.id === flagId);
        if (!live) throw notFound();
        return testEvaluation(deps.pool, view, live, request.body as TestEvaluationInput, request.log);
      },
    );
    refuseOtherMethods(app, TEST_EVALUATION, ['POST']);
  };
}
