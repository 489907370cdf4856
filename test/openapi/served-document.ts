/** The served OpenAPI document and how to find an operation in it (the openapi tests share these). */
import assert from 'node:assert/strict';
import type { OpenApiDocument, Operation } from '../../src/openapi/document.ts';
import type { TestApp } from '../helpers/app.ts';

export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
}

export async function servedDocument(t: TestApp): Promise<OpenApiDocument> {
  const response = await t.request({ method: 'GET', url: '/api/schema/', key: null });
  assert.equal(response.statusCode, 200);
  return response.json();
}

export function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ method, path, operation })),
  );
}

const templateOf = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\/$/, '')}/?$`);

/** The operation a request reaches: a fixed path beats a template (`/feature_flags/activity` over `/feature_flags/{id}`). */
export function operationFor(document: OpenApiDocument, method: string, url: string): DocumentedOperation | undefined {
  const path = url.split('?')[0];
  const candidates = operationsOf(document).filter(
    (candidate) => candidate.method === method.toLowerCase() && templateOf(candidate.path).test(path),
  );
  return candidates.sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))[0];
}

export const documentedStatuses = (operation: Operation): number[] => Object.keys(operation.responses).map(Number);

/** `value` with every local `$ref` replaced by what it names (the document's shared schemas inlined). */
export function inlineRefs(document: OpenApiDocument, value: unknown, depth = 0): unknown {
  assert.ok(depth < 32, 'a $ref cycle');
  if (Array.isArray(value)) return value.map((item) => inlineRefs(document, item, depth));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/')) {
    const [, , section, name] = ref.split('/');
    const components = document.components as Record<string, Record<string, unknown> | undefined>;
    return inlineRefs(document, components[section]?.[name], depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inlineRefs(document, item, depth)]));
}
