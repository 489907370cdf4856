/**
 * A scheduled change's request body, field by field, in DRF's words: each field sent is checked
 * for its type; which fields are required and how they combine is decided by rules.ts.
 */
import { validationError, requiredField } from '../kernel/errors.ts';
import { pythonStr } from '../kernel/http/python-types.ts';
import { withinStorableYears } from '../kernel/time.ts';
import { FEATURE_FLAG_MODEL } from './apply.ts';
import { RECURRENCE_INTERVALS, type RecurrenceInterval } from './recurrence.ts';

export interface ScheduleBody {
  record_id?: string;
  model_name?: string;
  payload?: unknown;
  scheduled_at?: Date;
  is_recurring?: boolean;
  recurrence_interval?: RecurrenceInterval | null;
  cron_expression?: string | null;
  end_date?: Date | null;
}

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(\.\d{1,6})?)?(Z|[+-]\d\d(?::?\d\d)?)?$/i;
const WRONG_DATETIME = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

function dateTime(value: unknown, attr: string): Date {
  const match = typeof value === 'string' ? DATE_TIME.exec(value.trim()) : null;
  if (!match) throw validationError(WRONG_DATETIME, attr, 'invalid_input');
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset}`);
  if (!Number.isFinite(ms) || !withinStorableYears(ms)) throw validationError(WRONG_DATETIME, attr, 'invalid_input');
  return new Date(ms);
}

function notNull(value: unknown, attr: string): void {
  if (value === null) throw validationError('This field may not be null.', attr, 'null');
}

function text(value: unknown, attr: string, maxLength: number): string {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') throw validationError('Not a valid string.', attr, 'invalid_input');
  const trimmed = value.trim();
  if (trimmed === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (trimmed.length > maxLength) throw validationError(`Ensure this field has no more than ${maxLength} characters.`, attr, 'max_length');
  return trimmed;
}

const TRUE_VALUES = new Set<unknown>([true, 1, '1', 'true', 'True', 'TRUE', 'on', 'yes']);
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'false', 'False', 'FALSE', 'off', 'no']);

function boolean(value: unknown, attr: string): boolean {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  throw validationError('Must be a valid boolean.', attr, 'invalid_input');
}

function choice<T extends string>(value: unknown, choices: readonly T[], attr: string): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw validationError(`"${pythonStr(value)}" is not a valid choice.`, attr, 'invalid_choice');
}

/** The fields of `raw` that were sent, typed; `partial` false (POST, PUT) also requires the required ones. */
export function parseScheduleBody(raw: Record<string, unknown>, partial: boolean): ScheduleBody {
  const body: ScheduleBody = {};
  for (const attr of ['record_id', 'model_name', 'payload', 'scheduled_at']) {
    if (!partial && raw[attr] === undefined) throw requiredField(attr);
  }
  if (raw.record_id !== undefined) {
    notNull(raw.record_id, 'record_id');
    body.record_id = text(raw.record_id, 'record_id', 200);
  }
  if (raw.model_name !== undefined) body.model_name = choice(raw.model_name, [FEATURE_FLAG_MODEL], 'model_name');
  if (raw.payload !== undefined) {
    notNull(raw.payload, 'payload');
    body.payload = raw.payload;
  }
  if (raw.scheduled_at !== undefined) {
    notNull(raw.scheduled_at, 'scheduled_at');
    body.scheduled_at = dateTime(raw.scheduled_at, 'scheduled_at');
  }
  if (raw.is_recurring !== undefined) {
    notNull(raw.is_recurring, 'is_recurring');
    body.is_recurring = boolean(raw.is_recurring, 'is_recurring');
  }
  if (raw.recurrence_interval !== undefined) {
    body.recurrence_interval = raw.recurrence_interval === null ? null : choice(raw.recurrence_interval, RECURRENCE_INTERVALS, 'recurrence_interval');
  }
  if (raw.cron_expression !== undefined) {
    if (raw.cron_expression === null || raw.cron_expression === '') body.cron_expression = null;
    else {
      if (typeof raw.cron_expression !== 'string') throw validationError('Not a valid string.', 'cron_expression', 'invalid_input');
      if (raw.cron_expression.length > 100) throw validationError('Ensure this field has no more than 100 characters.', 'cron_expression', 'max_length');
      body.cron_expression = raw.cron_expression.trim() === '' ? null : raw.cron_expression.trim();
    }
  }
  if (raw.end_date !== undefined) body.end_date = raw.end_date === null ? null : dateTime(raw.end_date, 'end_date');
  return body;
}
