import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { after, before, test } from 'node:test';
import type { OpenApiDocument } from '../../src/openapi/document.ts';
import { keyWith } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { documentedStatuses, operationsOf, servedDocument, type DocumentedOperation } from './served-document.ts';

/**
 * Every operation is sent the refusals any client meets — no credentials, a key without the
 * scope, an unknown project, ids that name nothing, a bad query, a body that is not JSON or not
 * valid JSON — and each answer's status must be documented for that operation. The requests
 * change nothing: ids name nothing and bodies never get past the parser.
 */
let t: TestApp;
let document: OpenApiDocument;
let narrowKey: string;
before(async () => {
  t = await startTestApp();
  document = await servedDocument(t);
  narrowKey = await keyWith(t, ['annotation:read']);
});
after(async () => {
  await t.close();
});

const BODY_METHODS = new Set(['post', 'put', 'patch']);

function urlOf({ path }: DocumentedOperation, projectId: string): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    if (name === 'project_id') return projectId;
    if (name === 'organization_id') return randomUUID();
    if (name === 'token') return 'phc_unknown';
    return '0';
  });
}

function probesOf(operation: DocumentedOperation, realProject: string): (InjectOptions & { key?: string | null })[] {
  const method = operation.method.toUpperCase() as InjectOptions['method'];
  const unknownProject = urlOf(operation, '999999');
  // A DELETE is only ever sent to ids that name nothing.
  const url = operation.method === 'delete' ? unknownProject : urlOf(operation, realProject);
  const probes: (InjectOptions & { key?: string | null })[] = [
    { method, url, key: null },
    { method, url: unknownProject, key: narrowKey },
    { method, url: unknownProject },
  ];
  if (operation.method === 'get') probes.push({ method, url }, { method, url: `${url}?limit=-1&offset=x` });
  if (BODY_METHODS.has(operation.method)) {
    probes.push(
      { method, url, headers: { 'content-type': 'application/json' }, payload: '{"unterminated' },
      { method, url, headers: { 'content-type': 'text/plain' }, payload: 'plain text' },
    );
  }
  return probes;
}

test('every answer to a refused request has its status documented for the operation', async () => {
  const undocumented: string[] = [];
  let sent = 0;
  for (const operation of operationsOf(document)) {
    for (const probe of probesOf(operation, String(t.projectId))) {
      const response = await t.request(probe);
      sent += 1;
      assert.ok(response.statusCode < 500 || response.statusCode === 503, `${probe.method} ${probe.url}: ${response.statusCode} ${response.body}`);
      if (!documentedStatuses(operation.operation).includes(response.statusCode)) {
        undocumented.push(`${operation.operation.operationId} ${probe.method} ${probe.url} → ${response.statusCode}`);
      }
    }
  }
  assert.ok(sent > 500);
  assert.deepEqual(undocumented, []);
});
