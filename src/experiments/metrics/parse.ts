/**
 * Checks a metric as sent (PostHog's `ExperimentMetric`) and reads it into the shape ingestion and
 * the results query use. What is not served (actions, data warehouse sources, retention, legacy
 * trends/funnels queries, distinct-count maths, person property filters) is refused by name.
 */
import { randomUUID } from 'node:crypto';
import { validationError } from '../../kernel/errors.ts';
import { pythonStr } from '../../kernel/http/python-types.ts';
import type { EventPropertyFilter, EventSource, ParsedMetric } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export const SERVED_OPERATORS = new Set(['exact', 'is_not', 'icontains', 'not_icontains', 'is_set', 'is_not_set', 'gt', 'gte', 'lt', 'lte']);
const SERVED_MATHS = new Set(['total', 'sum', 'avg', 'min', 'max']);
const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000, month: 2_592_000_000 };
const MAX_STEPS = 20;
const MAX_FILTERS = 50;

const refuse = (attr: string, detail: string) => validationError(detail, attr);

function parseProperties(raw: unknown, attr: string): EventPropertyFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw refuse(attr, 'properties must be a list of property filters.');
  if (raw.length > MAX_FILTERS) throw refuse(attr, `At most ${MAX_FILTERS} property filters are supported per source.`);
  return raw.map((filter) => {
    if (!isObject(filter) || typeof filter.key !== 'string') throw refuse(attr, 'Each property filter needs a string key.');
    const type = filter.type ?? 'event';
    if (type !== 'event') throw refuse(attr, `Only event property filters are served in experiment metrics (got type "${pythonStr(type)}").`);
    const operator = filter.operator ?? 'exact';
    if (typeof operator !== 'string' || !SERVED_OPERATORS.has(operator)) {
      throw refuse(attr, `Property filter operator "${pythonStr(operator)}" is not served; served: ${[...SERVED_OPERATORS].join(', ')}.`);
    }
    return { key: filter.key, operator, value: filter.value ?? null };
  });
}

export function parseSource(raw: unknown, attr: string): EventSource {
  if (!isObject(raw)) throw refuse(attr, 'A metric source must be an object.');
  const kind = raw.kind ?? 'EventsNode';
  if (kind !== 'EventsNode') throw refuse(attr, `Metric sources of kind "${pythonStr(kind)}" are not served; only EventsNode is.`);
  const event = raw.event ?? null;
  if (event !== null && typeof event !== 'string') throw refuse(attr, 'event must be a string or null.');
  const math = raw.math ?? 'total';
  if (typeof math !== 'string' || !SERVED_MATHS.has(math)) {
    throw refuse(attr, `math "${pythonStr(math)}" is not served; served: ${[...SERVED_MATHS].join(', ')}.`);
  }
  const property = raw.math_property ?? null;
  if (math !== 'total' && (typeof property !== 'string' || property === '')) throw refuse(attr, `math "${math}" needs a math_property.`);
  return { event, properties: parseProperties(raw.properties, attr), math: math as EventSource['math'], math_property: math === 'total' ? null : (property as string) };
}

function windowOf(raw: Json, attr: string): number | null {
  const window = raw.conversion_window;
  if (window === undefined || window === null) return null;
  if (typeof window !== 'number' || !Number.isInteger(window) || window <= 0) throw refuse(attr, 'conversion_window must be a positive integer.');
  const unit = raw.conversion_window_unit ?? 'day';
  const ms = typeof unit === 'string' ? UNIT_MS[unit] : undefined;
  if (ms === undefined) throw refuse(attr, `"${pythonStr(unit)}" is not a valid conversion_window_unit.`);
  return window * ms;
}

function percentile(raw: unknown, attr: string): number | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'number' || !(raw >= 0 && raw <= 1)) throw refuse(attr, 'Percentile bounds are fractions between 0 and 1.');
  return raw;
}

/** Reads one stored or sent metric; `attr` names it in errors (`metrics`, `metrics_secondary`, `metric`). */
export function parseMetric(raw: unknown, attr: string): ParsedMetric {
  if (!isObject(raw)) throw refuse(attr, 'Each metric must be an object.');
  const kind = raw.kind ?? 'ExperimentMetric';
  if (kind === 'ExperimentTrendsQuery' || kind === 'ExperimentFunnelsQuery') {
    throw refuse(attr, `Legacy metrics (${kind}) are not served; send kind "ExperimentMetric" with metric_type mean, funnel or ratio.`);
  }
  if (kind !== 'ExperimentMetric') throw refuse(attr, `Metric kind "${pythonStr(kind)}" is not served; only ExperimentMetric is.`);
  const uuid = typeof raw.uuid === 'string' && raw.uuid !== '' ? raw.uuid : '';
  const windowMs = windowOf(raw, attr);
  const breakdowns = isObject(raw.breakdownFilter) ? raw.breakdownFilter.breakdowns : undefined;
  if (Array.isArray(breakdowns) && breakdowns.length > 0) throw refuse(attr, 'Breakdowns of experiment metrics are not served.');
  switch (raw.metric_type) {
    case 'mean':
      return {
        uuid,
        metric_type: 'mean',
        windowMs,
        source: parseSource(raw.source, attr),
        lower_bound_percentile: percentile(raw.lower_bound_percentile, attr),
        upper_bound_percentile: percentile(raw.upper_bound_percentile, attr),
        ignore_zeros: raw.ignore_zeros === true,
      };
    case 'funnel': {
      if (!Array.isArray(raw.series) || raw.series.length === 0) throw refuse(attr, 'A funnel metric needs at least one step in series.');
      if (raw.series.length > MAX_STEPS) throw refuse(attr, `A funnel metric has at most ${MAX_STEPS} steps.`);
      if (raw.funnel_order_type !== undefined && raw.funnel_order_type !== null && raw.funnel_order_type !== 'ordered') {
        throw refuse(attr, `funnel_order_type "${pythonStr(raw.funnel_order_type)}" is not served; only ordered funnels are.`);
      }
      return { uuid, metric_type: 'funnel', windowMs, series: raw.series.map((step) => parseSource(step, attr)) };
    }
    case 'ratio':
      return { uuid, metric_type: 'ratio', windowMs, numerator: parseSource(raw.numerator, attr), denominator: parseSource(raw.denominator, attr) };
    case 'retention':
      throw refuse(attr, 'Retention metrics are not served; use mean, funnel or ratio.');
    default:
      throw refuse(attr, `"${pythonStr(raw.metric_type)}" is not a valid metric_type; served: mean, funnel, ratio.`);
  }
}

/** A metric list as sent, checked, each with a uuid (a new one when missing). */
export function checkMetricList(raw: unknown, attr: string): Array<Json & { uuid: string; metric_type: string }> {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw refuse(attr, 'Expected a list of metrics.');
  if (raw.length > 50) throw refuse(attr, 'At most 50 metrics per list.');
  return raw.map((metric) => {
    parseMetric(metric, attr);
    const object = metric as Json;
    const uuid = typeof object.uuid === 'string' && object.uuid !== '' ? object.uuid : randomUUID();
    return { ...object, kind: 'ExperimentMetric', uuid, metric_type: object.metric_type as string };
  });
}
