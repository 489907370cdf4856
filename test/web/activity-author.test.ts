// Who the activity history names for an entry (web/src/activity/author.ts), with the users the
// activity routes answer: a person, or the System user of an entry no person made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authorOf } from '../../web/src/activity/author.ts';

const person = {
  id: 1,
  uuid: '00000000-0000-4000-8000-000000000001',
  distinct_id: 'd1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  is_email_verified: true,
  hedgehog_config: null,
  role_at_organization: null,
};

test('a person is named by first and last name, or by e-mail when both are blank', () => {
  assert.equal(authorOf({ user: person }), 'Ada Lovelace');
  assert.equal(authorOf({ user: { ...person, first_name: '', last_name: '' } }), 'ada@example.com');
});

test('an entry no person made names Bellwether, never "System undefined"', () => {
  assert.equal(authorOf({ user: { first_name: 'System', email: null, is_system: true } }), 'Bellwether');
});
