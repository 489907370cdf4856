import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { orNotFound } from '../../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { listPage } from '../../kernel/http/pagination.ts';
import { presentPerson } from './present.ts';
import { parsePersonPropertyFilter } from './property-filter.ts';
import { findPerson, listPersons, type PersonListFilter } from './read-model.ts';
import { Person, PersonList, PersonListQuery, PersonParams, ProjectParams } from './schemas.ts';

const tags = ['persons'];

function filterOf(query: PersonListQuery): PersonListFilter {
  const search = query.search?.trim();
  return {
    distinctId: query.distinct_id,
    email: query.email,
    search: search ? search : undefined,
    properties: query.properties !== undefined && query.properties.trim() !== '' ? parsePersonPropertyFilter(query.properties) : undefined,
  };
}

/** /api/projects/:project_id/persons: read-only (persons are written by ingestion). */
export function personRoutes(deps: Kernel) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET'], '/:id': ['GET'] });

    app.get(
      '/',
      {
        config: { scope: 'person:read' },
        schema: {
          tags,
          summary: 'List persons, newest first',
          params: ProjectParams,
          querystring: PersonListQuery,
          response: { 200: PersonList },
        },
      },
      async (request) => {
        const filter = filterOf(request.query);
        return listPage(request, request.query, (page) => listPersons(deps.pool, request.project.id, filter, page), presentPerson);
      },
    );

    app.get(
      '/:id',
      {
        config: { scope: 'person:read' },
        schema: {
          tags,
          summary: 'Retrieve a person by uuid (or integer id)',
          params: PersonParams,
          response: { 200: Person },
        },
      },
      async (request) => {
        return presentPerson(orNotFound(await findPerson(deps.pool, request.project.id, request.params.id)));
      },
    );
  };
}
