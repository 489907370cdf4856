import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { grantTraversal } from '../../src/db/system-user-reach.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'bw-reach-'));
after(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (dir: string) => statSync(dir).mode & 0o777;

test('adds o+x to exactly the folders above the target that lack it, and says so', () => {
  const closed = path.join(root, 'closed');
  const open = path.join(closed, 'open');
  const target = path.join(open, 'data');
  mkdirSync(target, { recursive: true });
  chmodSync(closed, 0o700);
  chmodSync(open, 0o751);
  chmodSync(target, 0o700);
  const reports: string[] = [];
  grantTraversal([target], (message) => reports.push(message));
  assert.equal(modeOf(root), 0o701); // mkdtemp makes 0700
  assert.equal(modeOf(closed), 0o701);
  assert.equal(modeOf(open), 0o751);
  assert.equal(modeOf(target), 0o701);
  assert.equal(reports.length, 3);
  assert.ok(reports.every((r) => !r.includes(`${open} `)));

  const again: string[] = [];
  grantTraversal([target], (message) => again.push(message));
  assert.deepEqual(again, []);
});
