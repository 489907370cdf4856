// A flag history entry's revert (web/src/flags/revert.ts): the `before` values of the fields a
// person can write, nothing that moves by itself; undoing the creation deletes the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActivityEntry } from '../../web/src/api/types.ts';
import { revertChanges } from '../../web/src/flags/revert.ts';

function entry(activity: string, changes: Array<{ field: string; before: unknown; after: unknown }>): ActivityEntry {
  return {
    id: '1',
    user: { first_name: 'System', email: null, is_system: true },
    activity,
    scope: 'FeatureFlag',
    item_id: '7',
    detail: {
      changes: changes.map((change) => ({ type: 'FeatureFlag', action: 'changed' as const, ...change })),
      trigger: null,
      type: null,
      name: 'f',
      short_id: null,
    },
    created_at: '2026-11-27T10:00:00Z',
  } as ActivityEntry;
}

test('an update is undone by its before values; version and last_called_at are left to move by themselves', () => {
  const filters = { groups: [{ properties: [], rollout_percentage: 10 }] };
  const changes = revertChanges(
    entry('updated', [
      { field: 'filters', before: filters, after: { groups: [] } },
      { field: 'active', before: true, after: false },
      { field: 'version', before: 3, after: 4 },
      { field: 'last_called_at', before: null, after: '2026-11-27T09:00:00Z' },
    ]),
  );
  assert.deepEqual(changes, { filters, active: true });
});

test('a deletion is undone by a restore; a creation by a (restorable) deletion', () => {
  assert.deepEqual(revertChanges(entry('deleted', [{ field: 'deleted', before: false, after: true }, { field: 'version', before: 1, after: 2 }])), { deleted: false });
  assert.deepEqual(revertChanges(entry('created', [])), { deleted: true });
});

test('an entry that changed only what moves by itself offers no revert', () => {
  assert.equal(revertChanges(entry('updated', [{ field: 'version', before: 1, after: 2 }])), null);
  assert.equal(revertChanges(entry('updated', [])), null);
});
