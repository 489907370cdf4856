/**
 * The "Schedule a change" form and its mapping to a scheduled change's body
 * (`/scheduled_changes/`), and a schedule's payload and recurrence in words. Pure functions.
 */
import type { FeatureFlag } from '../../api/types.ts';
import { formatPercent } from '../../lib/format.ts';
import { zonedToUtc } from '../../lib/zoned-time.ts';
import { formToFilters, newUid, type ConditionForm } from '../filters-form.ts';

export type ScheduleOperation = 'enable' | 'disable' | 'add_release_condition' | 'update_variants';
export type Repeat = 'once' | 'interval' | 'cron';
export type Interval = 'daily' | 'weekly' | 'monthly' | 'yearly';

export const INTERVAL_LABELS: Record<Interval, string> = { daily: 'Every day', weekly: 'Every week', monthly: 'Every month', yearly: 'Every year' };

export interface VariantRollout {
  key: string;
  rollout: number;
}

export interface ScheduleForm {
  operation: ScheduleOperation;
  /** "YYYY-MM-DDTHH:mm" on the project's wall clock. */
  when: string;
  repeat: Repeat;
  interval: Interval;
  cron: string;
  /** Like `when`, or '' for no end. */
  endDate: string;
  condition: ConditionForm;
  variants: VariantRollout[];
}

type Json = Record<string, unknown>;

export function flagVariants(flag: Pick<FeatureFlag, 'filters'>): VariantRollout[] {
  return (flag.filters.multivariate?.variants ?? []).map((variant) => ({ key: variant.key, rollout: variant.rollout_percentage ?? 0 }));
}

export function newScheduleForm(flag: Pick<FeatureFlag, 'active' | 'filters'>, when = ''): ScheduleForm {
  return {
    operation: flag.active ? 'disable' : 'enable',
    when,
    repeat: 'once',
    interval: 'daily',
    cron: '0 9 * * 1-5',
    endDate: '',
    condition: { uid: newUid('g'), properties: [], rollout_percentage: 100, extra: {} },
    variants: flagVariants(flag),
  };
}

/** add_release_condition appends on every run: it cannot repeat (the API refuses it too). */
export const canRepeat = (operation: ScheduleOperation): boolean => operation !== 'add_release_condition';

function payloadOf(form: ScheduleForm, flag: Pick<FeatureFlag, 'filters'>): Json {
  if (form.operation === 'enable' || form.operation === 'disable') return { operation: 'update_status', value: form.operation === 'enable' };
  if (form.operation === 'add_release_condition') {
    const filters = formToFilters({ groups: [form.condition], payloadsPresent: false, otherPayloads: {}, extra: {} });
    return { operation: 'add_release_condition', value: { groups: filters.groups ?? [] } };
  }
  const names = new Map((flag.filters.multivariate?.variants ?? []).map((variant) => [variant.key, variant.name]));
  const variants = form.variants.map((variant) => {
    const name = names.get(variant.key);
    return { key: variant.key, ...(name ? { name } : {}), rollout_percentage: variant.rollout };
  });
  // The payloads are replaced wholesale when the change runs: keep today's, for the variants kept.
  const current: Json = (flag.filters.payloads as Json | undefined) ?? {};
  const payloads = Object.fromEntries(Object.entries(current).filter(([key]) => form.variants.some((variant) => variant.key === key)));
  return { operation: 'update_variants', value: { variants, payloads } };
}

export type ScheduleBody = Json;

/** The body to POST, or the first thing the person must fix (in the order the form shows them). */
export function scheduleBody(form: ScheduleForm, flag: Pick<FeatureFlag, 'id' | 'filters'>, timeZone: string): { body: ScheduleBody } | { issue: string } {
  const scheduledAt = zonedToUtc(form.when, timeZone);
  if (scheduledAt === null) return { issue: 'Choose the date and time of the change.' };
  if (form.operation === 'update_variants') {
    if (form.variants.length === 0) return { issue: 'This flag has no variants to change.' };
    const sum = form.variants.reduce((total, variant) => total + variant.rollout, 0);
    if (sum !== 100) return { issue: `The variants' rollouts add up to ${sum}%: they must add up to 100%.` };
  }
  const recurring = form.repeat !== 'once' && canRepeat(form.operation);
  if (form.repeat !== 'once' && !recurring) return { issue: 'Adding a release condition cannot repeat: every run would add it again.' };
  if (recurring && form.repeat === 'cron' && form.cron.trim().split(/\s+/).length !== 5) {
    return { issue: 'A cron expression has five fields: minute hour day month weekday, e.g. 0 9 * * 1-5.' };
  }
  let endDate: string | null = null;
  if (recurring && form.endDate !== '') {
    endDate = zonedToUtc(form.endDate, timeZone);
    if (endDate === null) return { issue: 'The end date is not a date and time.' };
    if (endDate <= scheduledAt) return { issue: 'The end date must be after the first run.' };
  }
  return {
    body: {
      record_id: String(flag.id),
      model_name: 'FeatureFlag',
      payload: payloadOf(form, flag),
      scheduled_at: scheduledAt,
      is_recurring: recurring,
      recurrence_interval: recurring && form.repeat === 'interval' ? form.interval : null,
      cron_expression: recurring && form.repeat === 'cron' ? form.cron.trim() : null,
      end_date: endDate,
    },
  };
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function groupText(group: unknown): string {
  if (!isObject(group)) return 'a condition set';
  const count = Array.isArray(group.properties) ? group.properties.length : 0;
  const rollout = formatPercent(typeof group.rollout_percentage === 'number' ? group.rollout_percentage : null);
  return count === 0 ? `${rollout} of everyone` : `${rollout} of those matching ${count} filter${count === 1 ? '' : 's'}`;
}

/** A scheduled change's payload in words: "Turn on", "Add a release condition: 50% of everyone"… */
export function describePayload(payload: unknown): string {
  if (!isObject(payload)) return 'Unreadable change';
  const { operation, value } = payload;
  if (operation === 'update_status') {
    const on = value === true || value === 'true' || value === 1 || value === '1';
    return on ? 'Turn on' : 'Turn off';
  }
  if (operation === 'add_release_condition') {
    const groups = isObject(value) && Array.isArray(value.groups) ? value.groups : [];
    return `Add a release condition: ${groups.map(groupText).join('; ') || 'none'}`;
  }
  if (operation === 'update_variants') {
    const variants = isObject(value) && Array.isArray(value.variants) ? value.variants.filter(isObject) : [];
    return `Set variants: ${variants.map((variant) => `${String(variant.key)} ${formatPercent(Number(variant.rollout_percentage ?? 0))}`).join(', ')}`;
  }
  return `Unknown change (${String(operation)})`;
}

export interface RecurrenceFields {
  is_recurring: boolean;
  recurrence_interval: string | null;
  cron_expression: string | null;
}

/** A recurring schedule whose recurrence is kept while `is_recurring` is false: it never runs until resumed. */
export const isPaused = (schedule: RecurrenceFields): boolean =>
  !schedule.is_recurring && (schedule.recurrence_interval !== null || schedule.cron_expression !== null);

export const hasRecurrence = (schedule: RecurrenceFields): boolean => schedule.recurrence_interval !== null || schedule.cron_expression !== null;

/** "Once", "Every week", "Cron 0 9 * * 1-5". */
export function describeRecurrence(schedule: RecurrenceFields): string {
  if (schedule.recurrence_interval !== null) return INTERVAL_LABELS[schedule.recurrence_interval as Interval] ?? schedule.recurrence_interval;
  if (schedule.cron_expression !== null) return `Cron ${schedule.cron_expression}`;
  return 'Once';
}
