/**
 * What is wrong with a release-conditions form before it is sent, and where the server's answer
 * about `filters` belongs in the editor. Both speak in the API's `attr` paths (nested fields joined
 * by `__`, e.g. `filters__groups__0__rollout_percentage`), so the editor shows either beside the
 * same field. Pure.
 */
import { parseRelativeOrAbsoluteDate } from '../../../src/targeting/dates.ts';
import type { FiltersForm, PayloadForm } from './filters-form.ts';
import { listValues, valueKind } from './property-operators.ts';

export interface FormIssue {
  path: string;
  message: string;
}

const SUM_TOLERANCE = 0.01;

export const groupPath = (index: number) => `filters__groups__${index}`;
export const propertyPath = (group: number, property: number) => `${groupPath(group)}__properties__${property}`;
export const variantPath = (index: number) => `filters__multivariate__variants__${index}`;
export const VARIANTS_PATH = 'filters__multivariate';
export const PAYLOADS_PATH = 'filters__payloads';

export function variantSum(form: FiltersForm): number {
  return (form.multivariate?.variants ?? []).reduce((total, variant) => total + (Number.isFinite(variant.rollout_percentage) ? variant.rollout_percentage : 0), 0);
}

/** Integer percentages that add up to 100, the first ones taking the remainder (3 → 34, 33, 33). */
export function evenSplit(count: number): number[] {
  if (count <= 0) return [];
  const base = Math.floor(100 / count);
  const remainder = 100 - base * count;
  return Array.from({ length: count }, (_, index) => base + (index < remainder ? 1 : 0));
}

function payloadIssue(payload: PayloadForm | undefined): string | null {
  if (!payload || payload.text.trim() === '') return null;
  try {
    JSON.parse(payload.text);
    return null;
  } catch {
    return 'Not valid JSON. Strings need quotes: "like this".';
  }
}

const inPercentRange = (value: number) => Number.isFinite(value) && value >= 0 && value <= 100;

export function formIssues(form: FiltersForm, now: Date = new Date()): FormIssue[] {
  const issues: FormIssue[] = [];
  const groups = form.groups ?? [];
  if (groups.length === 0) issues.push({ path: 'filters', message: 'Add at least one condition set.' });
  const variants = form.multivariate?.variants ?? [];
  const variantKeys = new Set(variants.map((variant) => variant.key));

  groups.forEach((group, g) => {
    const rollout = group.rollout_percentage;
    if (rollout !== null && rollout !== undefined && !inPercentRange(rollout)) {
      issues.push({ path: `${groupPath(g)}__rollout_percentage`, message: 'A percentage between 0 and 100.' });
    }
    if (group.variant && !variantKeys.has(group.variant)) {
      issues.push({ path: `${groupPath(g)}__variant`, message: 'This variant does not exist any more.' });
    }
    (group.properties ?? []).forEach((property, p) => {
      const path = propertyPath(g, p);
      const kind = valueKind(property.type, property.operator);
      if (kind !== 'cohort' && String(property.key).trim() === '') {
        issues.push({ path: `${path}__key`, message: property.type === 'flag' ? 'Choose a flag.' : 'Name the property.' });
      }
      if (kind === 'cohort' && (property.value === '' || property.value === null || property.value === undefined)) {
        issues.push({ path: `${path}__value`, message: 'Choose a cohort.' });
      }
      if (kind === 'list' && listValues(property.value).length === 0) {
        issues.push({ path: `${path}__value`, message: 'Enter at least one value.' });
      }
      if ((kind === 'text' || kind === 'number') && String(property.value ?? '').trim() === '') {
        issues.push({ path: `${path}__value`, message: 'Enter a value.' });
      }
      if (kind === 'date' && parseRelativeOrAbsoluteDate(String(property.value ?? ''), now) === null) {
        issues.push({ path: `${path}__value`, message: 'A date (2025-01-31) or a relative date (-30d, -2w, -6m).' });
      }
    });
  });

  if (form.multivariate) {
    if (variants.length === 0) issues.push({ path: VARIANTS_PATH, message: 'Add at least one variant, or serve a boolean.' });
    const seen = new Set<string>();
    variants.forEach((variant, v) => {
      const key = variant.key.trim();
      if (key === '') issues.push({ path: `${variantPath(v)}__key`, message: 'A variant needs a key.' });
      else if (!/^[a-zA-Z0-9_-]+$/.test(key)) issues.push({ path: `${variantPath(v)}__key`, message: 'Letters, numbers, - and _ only.' });
      else if (seen.has(key)) issues.push({ path: `${variantPath(v)}__key`, message: 'Variant keys must be unique.' });
      seen.add(key);
      if (!inPercentRange(variant.rollout_percentage)) {
        issues.push({ path: `${variantPath(v)}__rollout_percentage`, message: 'A percentage between 0 and 100.' });
      }
      const payload = payloadIssue(variant.payload);
      if (payload) issues.push({ path: `${variantPath(v)}__payload`, message: payload });
    });
    const sum = variantSum(form);
    if (variants.length > 0 && Math.abs(sum - 100) > SUM_TOLERANCE) {
      issues.push({ path: VARIANTS_PATH, message: `Variant rollout percentages must add up to 100 (now ${Math.round(sum * 100) / 100}).` });
    }
  } else {
    const payload = payloadIssue(form.booleanPayload);
    if (payload) issues.push({ path: `${PAYLOADS_PATH}__true`, message: payload });
  }
  return issues;
}

/**
 * Where in the editor a server error about `filters` belongs. Nested `attr`s are used as they are;
 * PostHog-style errors all name `filters`, so their detail tells the place ("condition set 2",
 * variants, payloads) when it can; otherwise they belong to the release conditions as a whole.
 */
export function serverIssuePath(attr: string | null, detail: string): string | null {
  if (attr === null) return null;
  if (attr !== 'filters') return attr;
  const conditionSet = /condition set (\d+)/i.exec(detail);
  if (conditionSet) return groupPath(Number(conditionSet[1]) - 1);
  if (/payload/i.test(detail)) return PAYLOADS_PATH;
  if (/variant/i.test(detail)) return VARIANTS_PATH;
  return 'filters';
}

/** The messages at exactly `path`. */
export function issuesAt(issues: FormIssue[], path: string): string[] {
  return issues.filter((issue) => issue.path === path).map((issue) => issue.message);
}
