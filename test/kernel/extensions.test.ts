import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtensionPoint, Extensions } from '../../src/kernel/extensions.ts';

test('contributions are listed in the order they came, per extension point, and closed once sealed', () => {
  const extensions = new Extensions();
  const numbers = new ExtensionPoint<number>('numbers');
  const words = new ExtensionPoint<string>('words');
  const seen = extensions.list(numbers);
  extensions.contribute(numbers, 1, 2);
  extensions.contribute(words, 'a');
  extensions.contribute(numbers, 3);
  // The list read before the contributions is the same list: a reader may take it while areas register.
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual(extensions.list(words), ['a']);
  extensions.seal();
  assert.throws(() => extensions.contribute(numbers, 4), /numbers: contributions are closed/);
  assert.deepEqual(extensions.list(numbers), [1, 2, 3]);
});
