import { Type } from 'typebox';

export const CodegenParams = Type.Object({ project_id: Type.String() });

export const CodegenResponse = Type.Object({
  content: Type.String({ description: 'The generated source file' }),
  event_count: Type.Integer({ description: 'How many event definitions it covers' }),
  schema_hash: Type.String({
    description: 'First 32 hex characters of a SHA-256 over the events and their property types; unchanged while the definitions are',
  }),
  generator_version: Type.String(),
});
