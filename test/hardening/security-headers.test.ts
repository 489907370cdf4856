// Security headers, set in one place for every answer: nosniff everywhere, no-store on every
// management API answer (keys, tokens, people, members, invites, sessions, projects,
// organizations), a CSP without inline script and no framing on every page, the Swagger UI
// included, which must still work under it in Chromium.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { never } from '../helpers/eventually.ts';
import { givePassword, GOOD_PASSWORD, OWNER_EMAIL, signIn } from '../helpers/session.ts';
import { launchChromium, openConsole, STEP_MS } from '../e2e/support/console-browser.ts';

let t: TestApp;
let organizationId: string;
let inviteId: string;

before(async () => {
  t = await startTestApp();
  await givePassword(t);
  organizationId = (await t.request({ method: 'GET', url: '/api/organizations/@current/' })).json().id;
  const invite = await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/invites/`, payload: { target_email: 'headers@a.test' } });
  inviteId = invite.json().id;
});
after(() => t.close());

function assertPage(response: LightMyRequestResponse, what: string): void {
  const csp = String(response.headers['content-security-policy']);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.match(csp, /script-src 'self'(;|$)/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
  assert.equal(response.headers['x-frame-options'], 'DENY', what);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', what);
}

describe('every answer', () => {
  test('carries X-Content-Type-Options: nosniff, whatever it is', async () => {
    const flag = await t.request({ method: 'POST', url: '/api/projects/1/feature_flags/', payload: { key: 'nosniff-flag' } });
    const token = (await t.request({ method: 'GET', url: '/api/projects/1/' })).json().api_token;
    const etag = (await t.request({ method: 'GET', url: '/api/feature_flag/local_evaluation' })).headers.etag;
    const answers = await Promise.all([
      t.request({ method: 'GET', url: '/api/projects/1/feature_flags/' }),
      t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: null }),
      t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: 'phx_unknown' }),
      t.request({ method: 'GET', url: '/api/nothing/' }),
      t.request({ method: 'DELETE', url: `/api/projects/1/feature_flags/${flag.json().id}/` }),
      t.request({ method: 'GET', url: '/api/feature_flag/local_evaluation', headers: { 'if-none-match': String(etag) } }),
      t.app.inject({ method: 'POST', url: '/flags/?v=2', payload: { token, distinct_id: 'd' } }),
      t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch: [{ event: 'e', distinct_id: 'd' }] } }),
      t.app.inject({ method: 'OPTIONS', url: '/batch/', headers: { origin: 'https://site.example', 'access-control-request-method': 'POST' } }),
      t.app.inject({ method: 'GET', url: '/_health' }),
      t.app.inject({ method: 'GET', url: '/api/schema/' }),
      t.app.inject({ method: 'GET', url: '/' }),
    ]);
    assert.equal(answers[4].statusCode, 405);
    assert.equal(answers[5].statusCode, 304);
    for (const [i, response] of answers.entries()) assert.equal(response.headers['x-content-type-options'], 'nosniff', `answer ${i} (${response.statusCode})`);
  });
});

describe('management API answers carrying credentials or account data', () => {
  test('are Cache-Control: no-store, the one with a rotated secret token included', async () => {
    const session = await signIn(t);
    const created = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'k', scopes: ['*'] } });
    const answers: [string, LightMyRequestResponse][] = [
      ['key created (its value)', created],
      ['keys', await t.request({ method: 'GET', url: '/api/personal_api_keys/' })],
      ['current key', await t.request({ method: 'GET', url: '/api/personal_api_keys/@current/' })],
      ['secret token rotated', await t.request({ method: 'PATCH', url: '/api/projects/1/rotate_secret_token/' })],
      ['project token reset', await t.request({ method: 'PATCH', url: '/api/projects/1/reset_token/' })],
      ['project (tokens)', await t.request({ method: 'GET', url: '/api/projects/1/' })],
      ['projects', await t.request({ method: 'GET', url: '/api/projects/' })],
      ['project created (secret token)', await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Cached?' } })],
      ['organizations', await t.request({ method: 'GET', url: '/api/organizations/' })],
      ['organization', await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/` })],
      ['me', await t.request({ method: 'GET', url: '/api/users/@me/' })],
      ['me changed', await t.request({ method: 'PATCH', url: '/api/users/@me/', payload: { first_name: 'Admin' } })],
      ['members', await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/members/` })],
      ['invites', await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/invites/` })],
      ['invite created', await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/invites/`, payload: { target_email: 'nostore@a.test' } })],
      ['sign-up info', await t.app.inject({ method: 'GET', url: `/api/signup/${inviteId}/` })],
      ['sign-in', await t.app.inject({ method: 'POST', url: '/api/login/', payload: { email: OWNER_EMAIL, password: GOOD_PASSWORD } })],
      ['sign-in refused', await t.app.inject({ method: 'POST', url: '/api/login/', payload: { email: OWNER_EMAIL, password: 'wrong one' } })],
      ['one-time sign-in', await t.app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token: 'nope' } })],
      ['session me', await session.request({ method: 'GET', url: '/api/users/@me/' })],
      ['sign-out', await session.request({ method: 'POST', url: '/api/logout/' })],
      ['flags', await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/' })],
      ['refused', await t.request({ method: 'GET', url: '/api/users/@me/', key: null })],
    ];
    for (const [what, response] of answers) {
      assert.ok(response.statusCode < 500, `${what}: ${response.body}`);
      assert.equal(response.headers['cache-control'], 'no-store', what);
    }
    assert.match(answers[3][1].json().secret_api_token, /^phs_/);
  });

  test('JSON answers carry no page policy; pages do', async () => {
    const json = await t.request({ method: 'GET', url: '/api/projects/' });
    assert.equal(json.headers['content-security-policy'], undefined);
    assertPage(await t.app.inject({ method: 'GET', url: '/' }), 'the console');
    assertPage(await t.app.inject({ method: 'GET', url: '/feature_flags/12' }), 'a console route');
    assertPage(await t.app.inject({ method: 'GET', url: `/signup/${inviteId}` }), 'the sign-up page');
  });
});

describe('the Swagger UI at /api/schema/swagger-ui/', () => {
  let browser: Browser;
  let origin: string;
  before(async () => {
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close().catch(() => {});
  });

  test('every page of it has the CSP and no framing', async () => {
    const entry = await t.app.inject({ method: 'GET', url: '/api/schema/swagger-ui/' });
    const page = entry.statusCode === 200 ? entry : await t.app.inject({ method: 'GET', url: String(entry.headers.location) });
    assert.match(String(page.headers['content-type']), /text\/html/);
    assertPage(page, 'swagger UI');
    assertPage(await t.app.inject({ method: 'GET', url: '/api/schema/swagger-ui/static/index.html' }), 'swagger UI index.html');
    assert.equal(entry.headers['x-content-type-options'], 'nosniff');
  });

  test('still works in Chromium under that policy: operations listed, one opened, no violation reported', async () => {
    const opened = await openConsole(browser, origin);
    const violations: string[] = [];
    opened.page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    try {
      await opened.page.goto('/api/schema/swagger-ui/', { timeout: STEP_MS });
      await opened.page.locator('.opblock').first().waitFor({ timeout: STEP_MS });
      const operations = await opened.page.locator('.opblock').count();
      assert.ok(operations >= 10, `operations listed: ${operations}`);
      await opened.page.locator('.opblock-summary').first().click();
      await opened.page.locator('.opblock-body').first().waitFor({ timeout: STEP_MS });
      const shots = path.resolve('.tmp');
      mkdirSync(shots, { recursive: true });
      await opened.page.screenshot({ path: path.join(shots, 'swagger-ui-wide.png') });
      assert.deepEqual(violations, []);
      assert.deepEqual(opened.outside, [], 'nothing fetched from elsewhere');
    } finally {
      await opened.context.close();
    }
  });

  test('refuses to be framed by another page', async () => {
    const opened = await openConsole(browser, origin);
    try {
      // setContent returns on the page's load event, which waits for the frame's (refused) load.
      await opened.page.setContent(`<iframe id="f" src="${origin}/api/schema/swagger-ui/"></iframe>`);
      const rendered = async () => {
        const frame = opened.page.frames().find((f) => f.url().includes('/api/schema/swagger-ui'));
        return frame ? await frame.locator('#swagger-ui').count().catch(() => 0) : 0;
      };
      await never('the framed Swagger UI rendering', rendered, (count) => count > 0, { timeoutMs: 1_500, intervalMs: 100 });
    } finally {
      await opened.context.close();
    }
  });
});
