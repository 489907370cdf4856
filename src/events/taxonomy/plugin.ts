/**
 * The taxonomy area: event and property definitions, schema property groups and event schemas,
 * and the code generated from them. See docs/event-definitions.md.
 */
import { defineArea } from '../../kernel/area.ts';
import { registerInProject } from '../../kernel/http/project-scope.ts';
import { codegenRoutes } from '../codegen/routes.ts';
import { eventDefinitionRoutes } from '../definitions/routes.ts';
import { propertyDefinitionRoutes } from '../property-definitions/routes.ts';
import { schemaRoutes } from '../schemas/routes.ts';

export const taxonomy = defineArea('taxonomy', ['kernel', 'accounts'], async (app) => {
  await registerInProject(app, '/event_definitions', eventDefinitionRoutes(app.kernel), codegenRoutes(app.kernel));
  await registerInProject(app, '/property_definitions', propertyDefinitionRoutes(app.kernel));
  await registerInProject(app, '', schemaRoutes(app.kernel));
});
