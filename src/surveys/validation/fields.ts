import { requiredField } from '../../kernel/errors.ts';
import type { SurveyWriteBody } from '../schemas.ts';
import { fieldError } from '../errors.ts';

const SCHEDULES = ['once', 'recurring', 'always'];

/**
 * The field-level checks the body schema cannot express, in PostHog's field order:
 * `name` and `type` are required on create only (the schema makes every field optional, for PATCH);
 * a name of blanks is blank (DRF trims before its blank check; the name is stored as sent, like a
 * flag key); `schedule` is one of three values or null.
 */
export function checkPlainFields(body: SurveyWriteBody, isCreate: boolean): void {
  if (isCreate && body.name === undefined) throw requiredField('name');
  if (typeof body.name === 'string' && body.name.trim() === '') {
    throw fieldError('name', 'This field may not be blank.', 'blank');
  }
  if (isCreate && body.type === undefined) throw requiredField('type');
  const schedule = body.schedule;
  if (schedule !== undefined && schedule !== null && !SCHEDULES.includes(schedule as string)) {
    throw fieldError('schedule', 'Schedule must be one of: once, recurring, always');
  }
}
