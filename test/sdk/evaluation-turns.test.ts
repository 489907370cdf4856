import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluationTurn } from '../../src/sdk/evaluation-turns.ts';

test('evaluations take turns: what the event loop has to do between two of them runs between them', async () => {
  const order: string[] = [];
  const first = evaluationTurn().then(() => {
    order.push('first');
    setTimeout(() => order.push('timer set by the first'), 0);
    const until = performance.now() + 5; // a long evaluation: the timer is due when it ends
    while (performance.now() < until);
  });
  const second = evaluationTurn().then(() => order.push('second'));
  const third = evaluationTurn().then(() => order.push('third'));
  await Promise.all([first, second, third]);
  assert.deepEqual(order, ['first', 'timer set by the first', 'second', 'third']);
});

test('turns are given in arrival order, and a later caller is served after an idle moment', async () => {
  const order: number[] = [];
  await Promise.all([1, 2, 3, 4, 5].map((n) => evaluationTurn().then(() => order.push(n))));
  assert.deepEqual(order, [1, 2, 3, 4, 5]);
  await evaluationTurn();
});
