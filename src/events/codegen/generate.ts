import type { Pool } from '../../db/pool.ts';
import { golangGenerator } from './golang.ts';
import { loadCodegenEvents, schemaHash, type Generator } from './model.ts';
import { pythonGenerator } from './python.ts';
import { typescriptGenerator } from './typescript.ts';

export const GENERATORS = { typescript: typescriptGenerator, python: pythonGenerator, golang: golangGenerator } satisfies Record<string, Generator>;

export type Language = keyof typeof GENERATORS;

export interface GeneratedCode {
  content: string;
  event_count: number;
  schema_hash: string;
  generator_version: string;
}

/** The project's event definitions as code in one language. */
export async function generateCode(pool: Pool, projectId: number, language: Language, now = new Date()): Promise<GeneratedCode> {
  const generator = GENERATORS[language];
  const events = await loadCodegenEvents(pool, projectId);
  return {
    content: generator.generate({ events, generatedAt: now.toISOString() }),
    event_count: events.length,
    schema_hash: schemaHash(events, generator.version),
    generator_version: generator.version,
  };
}
