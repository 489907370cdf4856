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
  await registerInProject(
    app,
    async (definitions) => {
      await definitions.register(eventDefinitionRoutes(app.kernel));
      await definitions.register(codegenRoutes(app.kernel));
    },
    '/event_definitions',
  );
  await registerInProject(app, propertyDefinitionRoutes(app.kernel), '/property_definitions');
  await registerInProject(app, schemaRoutes(app.kernel));
});
