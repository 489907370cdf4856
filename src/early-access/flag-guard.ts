/**
 * What a flag linked to an early access feature may not become: deleted (the feature would name
 * a flag that is gone) or a group flag (enrolment is per person). Contributed to the flags area's
 * edit gates; refusing throws, so the edit's unit rolls back.
 */
import type { FlagEditGate } from '../flags/gate.ts';
import { validationError } from '../kernel/errors.ts';
import { featureOfFlag } from './store.ts';

export const linkedFlagGuard: FlagEditGate = async (unit, { before, next }) => {
  const deleting = next.deleted && !before.deleted;
  const toGroups = next.filters.aggregation_group_type_index != null && before.filters.aggregation_group_type_index == null;
  if (!deleting && !toGroups) return null;
  if ((await featureOfFlag(unit.client, before.id)) === null) return null;
  if (deleting) {
    throw validationError('Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.', null);
  }
  throw validationError('Cannot change this flag to a group-based when linked to an Early Access Feature.', null);
};
