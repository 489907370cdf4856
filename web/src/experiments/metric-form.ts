/** The metric editor's state and the `ExperimentMetric` it sends. Pure. */
import type { EventsNode, ExperimentMetric, MetricType, PropertyFilter } from './types.ts';

export const METRIC_OPERATORS: Array<{ value: string; label: string; needsValue: boolean }> = [
  { value: 'exact', label: 'equals', needsValue: true },
  { value: 'is_not', label: "doesn't equal", needsValue: true },
  { value: 'icontains', label: 'contains', needsValue: true },
  { value: 'not_icontains', label: "doesn't contain", needsValue: true },
  { value: 'gt', label: 'greater than', needsValue: true },
  { value: 'gte', label: 'at least', needsValue: true },
  { value: 'lt', label: 'less than', needsValue: true },
  { value: 'lte', label: 'at most', needsValue: true },
  { value: 'is_set', label: 'is set', needsValue: false },
  { value: 'is_not_set', label: 'is not set', needsValue: false },
];

export const MATH_OPTIONS = [
  { value: 'total', label: 'Count of events' },
  { value: 'sum', label: 'Sum of a property' },
  { value: 'avg', label: 'Average of a property' },
  { value: 'min', label: 'Minimum of a property' },
  { value: 'max', label: 'Maximum of a property' },
];

export const WINDOW_UNITS = ['hour', 'day', 'week'];

export interface FilterForm {
  uid: number;
  key: string;
  operator: string;
  value: string;
}

export interface SourceForm {
  event: string;
  math: NonNullable<EventsNode['math']>;
  property: string;
  filters: FilterForm[];
}

export interface MetricForm {
  uid: number;
  type: MetricType;
  name: string;
  source: SourceForm;
  steps: SourceForm[];
  numerator: SourceForm;
  denominator: SourceForm;
  /** empty: no window (until the experiment ends) */
  window: string;
  windowUnit: string;
}

let nextUid = 1;
export const uid = () => nextUid++;

export const emptySource = (event = ''): SourceForm => ({ event, math: 'total', property: '', filters: [] });

export function newMetricForm(type: MetricType = 'funnel'): MetricForm {
  return { uid: uid(), type, name: '', source: emptySource(), steps: [emptySource()], numerator: emptySource(), denominator: emptySource(), window: '', windowUnit: 'day' };
}

function filterOf(form: FilterForm): PropertyFilter {
  const needsValue = METRIC_OPERATORS.find((op) => op.value === form.operator)?.needsValue ?? true;
  return { key: form.key.trim(), operator: form.operator, value: needsValue ? form.value : null, type: 'event' };
}

function nodeOf(form: SourceForm, withMath: boolean): EventsNode {
  const node: EventsNode = { kind: 'EventsNode', event: form.event.trim() || null, properties: form.filters.filter((f) => f.key.trim() !== '').map(filterOf) };
  if (withMath) {
    node.math = form.math;
    if (form.math !== 'total') node.math_property = form.property.trim();
  }
  return node;
}

export function metricOf(form: MetricForm): ExperimentMetric {
  const metric: ExperimentMetric = { kind: 'ExperimentMetric', metric_type: form.type, goal: 'increase' };
  if (form.name.trim()) metric.name = form.name.trim();
  if (form.type === 'mean') metric.source = nodeOf(form.source, true);
  if (form.type === 'funnel') metric.series = form.steps.map((step) => nodeOf(step, false));
  if (form.type === 'ratio') {
    metric.numerator = nodeOf(form.numerator, true);
    metric.denominator = nodeOf(form.denominator, true);
  }
  const window = Number(form.window);
  if (form.window.trim() !== '' && Number.isInteger(window) && window > 0) {
    metric.conversion_window = window;
    metric.conversion_window_unit = form.windowUnit;
  }
  return metric;
}

/** What stops the form from being sent, in words; null when it can be. */
export function metricProblem(form: MetricForm): string | null {
  const sources = form.type === 'mean' ? [form.source] : form.type === 'funnel' ? form.steps : [form.numerator, form.denominator];
  if (sources.length === 0) return 'A funnel needs at least one step.';
  if (sources.some((source) => source.event.trim() === '')) return 'Choose an event for every step.';
  if (form.type !== 'funnel' && sources.some((source) => source.math !== 'total' && source.property.trim() === '')) return 'Name the property to add up.';
  if (form.window.trim() !== '' && !(Number.isInteger(Number(form.window)) && Number(form.window) > 0)) return 'The window is a whole number.';
  return null;
}
