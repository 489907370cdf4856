/** Assertions and fixtures every API test area uses. */
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

/** Asserts a 400 with the contract's error body. */
export function assertValidation(
  response: { statusCode: number; json(): unknown; body: string },
  detail: string,
  attr: string | null,
  code?: string,
): void {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json() as Record<string, unknown>;
  assert.equal(body.type, 'validation_error');
  assert.equal(body.detail, detail);
  assert.equal(body.attr, attr);
  if (code) assert.equal(body.code, code);
}

/** A personal API key of the test app's user with these scopes (and e.g. `scoped_teams`). */
export async function keyWith(t: TestApp, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: scopes.join(' ').slice(0, 40), scopes, ...extra } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().value;
}

/** A second project in the test app's organization. */
export async function otherProject(t: TestApp): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: `Other ${Math.random().toString(36).slice(2)}` } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id;
}
