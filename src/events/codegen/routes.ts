import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { generateCode, type Language } from './generate.ts';
import { CodegenParams, CodegenResponse } from './schemas.ts';

const TAGS = ['event_definitions'];

const LANGUAGES: { language: Language; summary: string }[] = [
  { language: 'typescript', summary: 'Type-safe capture() over posthog-js for the project’s events' },
  { language: 'python', summary: 'A typed PosthogTyped(Posthog) class for posthog-python, one capture_<event>() per event' },
  { language: 'golang', summary: 'Typed posthog-go Capture builders for the project’s events' },
];

const DESCRIPTION =
  'Covers every event not starting with `$`, plus `$pageview`, `$pageleave` and `$screen`. Property types come from the ' +
  'schema property groups attached to each event; an event without them gets the properties ingestion observed on it ' +
  '(optional), else a loose type. `schema_hash` changes only when that input does.';

/** /api/projects/:project_id/event_definitions/{typescript,python,golang} */
export function codegenRoutes(deps: Kernel) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    for (const { language, summary } of LANGUAGES) {
      app.get(
        `/${language}`,
        {
          config: { scope: 'event_definition:read' },
          schema: { tags: TAGS, summary, description: DESCRIPTION, params: CodegenParams, response: { 200: CodegenResponse } },
        },
        async (request) => generateCode(deps.pool, request.project.id, language),
      );
    }
  };
}
