import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { clientTypes, GENERATED_TYPES } from '../../scripts/openapi-types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { servedDocument } from './served-document.ts';

/**
 * The console's API types (web/src/api/generated/api.d.ts) are what openapi-typescript makes from
 * the served document; the console's own types derive from them and client.test.ts's typed client
 * uses them, so `npm run typecheck` checks both against the server. This test fails when the
 * committed file is not a fresh generation: run `npm run openapi:types`.
 */
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

test('the committed console API types are what openapi-typescript makes from the served document', async () => {
  const generated = await clientTypes(await servedDocument(t));
  const committed = await readFile(GENERATED_TYPES, 'utf8').catch(() => '');
  assert.ok(committed === generated, 'web/src/api/generated/api.d.ts is stale: run npm run openapi:types');
});
