import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isPublicAddress } from '../../src/webhooks/delivery/addresses.ts';
import { DestinationRefused, resolveDestination } from '../../src/webhooks/delivery/destination.ts';
import type { TestApp } from '../helpers/app.ts';
import { assertValidation } from '../helpers/api.ts';
import { createWebhook, createFlag, deliveries, startReceiver, startWebhookApp, webhooksUrl, type Receiver } from './support.ts';

/** Names the tests resolve: public ones, and one whose answer the test switches (DNS rebinding). */
const answers = new Map<string, string[]>([
  ['public.example', ['93.184.216.34']],
  ['mixed.example', ['93.184.216.34', '10.1.2.3']],
  ['metadata.example', ['169.254.169.254']],
  ['six.example', ['::1']],
  ['rebind.example', ['93.184.216.34']],
]);
async function resolve(hostname: string) {
  if (hostname === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
  const found = answers.get(hostname);
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

let t: TestApp;
let receiver: Receiver;
before(async () => {
  t = await startWebhookApp({ webhookAllowedHosts: new Set(['receiver.test']), webhookDelivery: { resolve } });
  receiver = await startReceiver();
  receiver.url = receiver.url.replace('127.0.0.1', 'receiver.test');
});
after(async () => {
  await t.close();
  await receiver.close();
});

const create = (url: string) => t.request({ method: 'POST', url: webhooksUrl(t.projectId), payload: { url, events: ['*'] } });

test('addresses inside the machine or its network are refused, public ones pass', () => {
  for (const inside of ['127.0.0.1', '127.9.9.9', '0.0.0.0', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '64:ff9b::7f00:1', '224.0.0.1', '255.255.255.255']) {
    assert.equal(isPublicAddress(inside), false, inside);
  }
  for (const outside of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1']) assert.equal(isPublicAddress(outside), true, outside);
});

test('create refuses loopback, private, link-local and metadata destinations however they are written', async () => {
  const refused = [
    'https://127.0.0.1/hook',
    'https://localhost/hook',
    'https://LOCALHOST./hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://2130706433/hook',
    'https://0x7f000001/hook',
    'https://017700000001/hook',
    'https://127.1/hook',
    'https://10.0.0.1/hook',
    'https://192.168.0.10/hook',
    'https://[fe80::1]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://metadata.example/hook',
    'https://six.example/hook',
    'https://mixed.example/hook',
  ];
  for (const url of refused) {
    const response = await create(url);
    assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
    const body = response.json();
    assert.equal(body.attr, 'url', url);
    assert.match(body.detail, /loopback, private, link-local or reserved|could not be resolved/, url);
  }
});

test('create refuses other schemes, plain http, credentials, unknown names and overlong URLs', async () => {
  assertValidation(await create('http://public.example/hook'), 'Only https URLs can receive webhooks (plain http only for hosts in WEBHOOK_ALLOWED_HOSTS).', 'url', 'invalid_url');
  assertValidation(await create('ftp://public.example/hook'), 'Only https URLs can receive webhooks.', 'url', 'invalid_url');
  assertValidation(await create('file:///etc/passwd'), 'Only https URLs can receive webhooks.', 'url', 'invalid_url');
  assertValidation(await create('https://user:pw@public.example/'), 'A webhook URL cannot hold a user name or password.', 'url', 'invalid_url');
  assertValidation(await create('not a url'), 'Enter a valid URL.', 'url', 'invalid_url');
  assertValidation(await create('https://nowhere.example/'), 'The host "nowhere.example" could not be resolved.', 'url', 'invalid_url');
  assertValidation(await create(`https://public.example/${'a'.repeat(2100)}`), 'Enter a URL of at most 2048 characters.', 'url', 'invalid_url');
  const ok = await create('https://public.example/hook');
  assert.equal(ok.statusCode, 201, ok.body);
});

test('a host listed in WEBHOOK_ALLOWED_HOSTS may resolve to a private address and use plain http', async () => {
  const ok = await create(receiver.url);
  assert.equal(ok.statusCode, 201, ok.body);
  assert.match(ok.json().url, /^http:\/\/receiver\.test:\d+\/hook$/);
  receiver.secret = ok.json().secret;
  await createFlag(t, 'allowed-host');
  await t.app.webhookWorker.runOnce();
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0].verified, true);
  assert.equal(receiver.received[0].headers.host, new URL(receiver.url).host);
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${ok.json().id}/` });
  receiver.received.length = 0;
});

test('every connection checks again: a name that now resolves inside is refused and nothing is sent', async () => {
  const hook = await createWebhook(t, { url: 'https://rebind.example/hook', events: ['feature_flag.created'] });
  answers.set('rebind.example', ['127.0.0.1']);
  await createFlag(t, 'rebinding');
  await t.app.webhookWorker.runOnce();
  const rows = await deliveries(t, hook.id);
  const mine = rows.find((row) => row.event_type === 'feature_flag.created')!;
  assert.equal(mine.status, 'pending');
  assert.equal(mine.response_status, null);
  assert.match(mine.error, /resolves to a loopback, private, link-local or reserved address \(127\.0\.0\.1\)/);
  assert.equal(receiver.received.length, 0);
});

test('redirects are not followed', async () => {
  const target = await startReceiver();
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  receiver.secret = hook.secret;
  receiver.answer = { status: 302, delayMs: 0, body: '' };
  await createFlag(t, 'redirected');
  await t.app.webhookWorker.runOnce();
  const [row] = await deliveries(t, hook.id);
  assert.equal(row.response_status, 302);
  assert.equal(row.error, 'redirect (302) not followed');
  assert.equal(target.received.length, 0);
  await target.close();
  receiver.answer = { status: 200, delayMs: 0, body: 'ok' };
});

test('through the system resolver, localhost is loopback and refused; listed, it passes', async () => {
  await assert.rejects(resolveDestination(new URL('https://localhost/hook'), new Set()), (error: unknown) => {
    assert.ok(error instanceof DestinationRefused);
    assert.match(error.message, /resolves to a loopback/);
    return true;
  });
  const listed = await resolveDestination(new URL('http://localhost:9/hook'), new Set(['localhost']));
  assert.ok(['127.0.0.1', '::1'].includes(listed.address));
});
