// Password strength: zxcvbn with its common-password and English dictionaries, plus the person's
// e-mail and name as known words; checked where a password is set (sign-up, PATCH @me, start-up).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkPasswordStrength, STRENGTH_INPUT_MAX } from '../../src/accounts/auth/password-rules.ts';
import { ApiError } from '../../src/kernel/errors.ts';
import { assertValidation } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { currentOrganizationId } from './support.ts';

function refusal(password: string, attributes: string[] = []): { code: string; detail: string; attr: string | null } | null {
  try {
    checkPasswordStrength(password, attributes);
    return null;
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 400);
    return { code: error.code, detail: error.message, attr: error.attr };
  }
}

describe('what is refused', () => {
  test('common passwords however decorated: P@ssw0rd1, Qwerty123!, Summer2026!, monkey123 and the like', () => {
    for (const password of ['P@ssw0rd1', 'Qwerty123!', 'Summer2026!', 'monkey123', 'password123', 'iloveyou2', 'Dragon2024', 'letmein!!']) {
      const refused = refusal(password);
      assert.equal(refused?.code, 'password_too_weak', password);
      assert.equal(refused?.attr, 'password');
      assert.match(refused!.detail, /^This password is too weak\./, password);
    }
  });

  test('the advice says why (zxcvbn\'s warning and suggestions, in English)', () => {
    assert.match(refusal('P@ssw0rd1')!.detail, /similar to a commonly used password/);
    assert.match(refusal('aaaaaaaaaa')!.detail, /Repeated characters/);
    assert.match(refusal('abcdefghij')!.detail, /sequences/);
  });

  test('the person\'s e-mail and name: rulestester for rules.tester@a.test, and variants', () => {
    const person = ['rules.tester@a.test', 'Rules', 'Tester'];
    for (const password of ['rulestester', 'rules.tester', 'RulesTester1', 'rules.tester@a.test', 'Tester.Rules']) {
      assert.equal(refusal(password, person)?.code, 'password_too_similar', password);
    }
    assert.notEqual(refusal('rulestester')?.code, 'password_too_similar', 'similarity is to the person setting it');
    assert.equal(refusal('Margaret Hamilton', ['margaret.hamilton@nasa.example', 'Margaret', 'Hamilton'])?.code, 'password_too_similar');
  });

  test('this service\'s name counts as a known word', () => {
    assert.equal(refusal('bellwether1')?.code, 'password_too_weak');
    assert.equal(refusal('Posthog2026!')?.code, 'password_too_weak');
  });

  test('length and digits: Django\'s rules first', () => {
    assert.equal(refusal('short')?.code, 'password_too_short');
    assert.equal(refusal('x'.repeat(257))?.code, 'max_length');
    assert.equal(refusal('31415926535897')?.code, 'password_entirely_numeric');
  });
});

describe('what is accepted', () => {
  test('passphrases and long random passwords', () => {
    for (const password of ['correct horse battery staple', 'tangerine-otter-42-window', 'orbital mechanics 1962', 'vivid lamp orbit', 'xK9#mQ2$vL7p']) {
      assert.equal(refusal(password, ['rules.tester@a.test', 'Rules', 'Tester']), null, password);
    }
  });

  test('a long password is judged on its first characters only, and stays cheap', () => {
    const strongStart = `correct horse battery staple ${'|!1l7+'.repeat(36)}`;
    assert.equal(strongStart.length > STRENGTH_INPUT_MAX, true);
    const started = performance.now();
    assert.equal(refusal(strongStart), null);
    refusal(`${'p4$$w0rd'.repeat(32)}`);
    // Loose: a few hundred characters of l33t text cost zxcvbn seconds when it sees them all.
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('through the API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('sign-up with an invite refuses rulestester for rules.tester@a.test, then accepts a passphrase', async () => {
    const organizationId = await currentOrganizationId(t);
    const invite = await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/invites/`, payload: { target_email: 'rules.tester@a.test' } });
    assert.equal(invite.statusCode, 201, invite.body);
    const url = `/api/signup/${invite.json().id}/`;
    const weak = await t.app.inject({ method: 'POST', url, payload: { first_name: 'Rules', last_name: 'Tester', password: 'rulestester' } });
    assertValidation(weak, 'The password is too similar to your e-mail address or name.', 'password', 'password_too_similar');
    const common = await t.app.inject({ method: 'POST', url, payload: { first_name: 'Rules', password: 'Summer2026!' } });
    assert.equal(common.json().code, 'password_too_weak', common.body);
    const good = await t.app.inject({ method: 'POST', url, payload: { first_name: 'Rules', password: 'tangerine otter window' } });
    assert.equal(good.statusCode, 201, good.body);
  });
});
