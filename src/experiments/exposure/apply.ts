/**
 * The one reading of events into experiment state, for ingestion (each batch) and for rebuilds
 * (stored events replayed): exposures first, then every metric event of an exposed person at or
 * after their first exposure, within the metric's window and the experiment's dates.
 */
import type { Queryable } from '../../db/pool.ts';
import { eventValue, isTestAccountEvent, matchesSource, type EventLike } from '../metrics/match.ts';
import type { EventSource, ParsedMetric } from '../metrics/types.ts';
import type { LiveExperiment } from './live.ts';
import {
  addPendingEvents,
  eventsByUuid,
  exposureTimes,
  lockMetricUnits,
  prunePendingEvents,
  takePendingEvents,
  unitKey,
  upsertExposures,
  writeMetricUnits,
  type ExposureWrite,
  type MetricUnit,
  type PendingEvent,
} from './state-store.ts';

export interface PersonEvent extends EventLike {
  uuid: string;
  personId: string;
  timestamp: Date;
}

/** One batch in a thousand that keeps events for later also forgets the ones kept over an hour. */
const PRUNE_CHANCE = 0.001;

function inDates(experiment: LiveExperiment, at: Date): boolean {
  return at >= experiment.start && (experiment.end === null || at <= experiment.end);
}

/** The variant an event exposes its person to, or null when it is no exposure of this experiment. */
export function exposureVariant(experiment: LiveExperiment, event: PersonEvent): string | null {
  const rule = experiment.exposure;
  if (event.event !== rule.event) return null;
  if (rule.flagKey !== null && event.properties.$feature_flag !== rule.flagKey) return null;
  if (!inDates(experiment, event.timestamp)) return null;
  if (rule.filterTestAccounts && isTestAccountEvent(event)) return null;
  if (!rule.properties.every((filter) => matchesSource(event, { event: null, properties: [filter], math: 'total', math_property: null }))) return null;
  const variant = event.properties[rule.variantProperty];
  return typeof variant === 'string' && experiment.variants.has(variant) ? variant : null;
}

function exposuresOf(experiment: LiveExperiment, events: PersonEvent[]): ExposureWrite[] {
  const byPerson = new Map<string, ExposureWrite>();
  for (const event of events) {
    const variant = exposureVariant(experiment, event);
    if (variant === null) continue;
    const seen = byPerson.get(event.personId);
    if (!seen) {
      byPerson.set(event.personId, { experimentId: experiment.id, personId: event.personId, firstSeenAt: event.timestamp, firstVariant: variant, multiple: false });
      continue;
    }
    if (variant !== seen.firstVariant) seen.multiple = true;
    if (event.timestamp < seen.firstSeenAt) {
      seen.firstSeenAt = event.timestamp;
      seen.firstVariant = variant;
    }
  }
  return [...byPerson.values()];
}

function metricSources(metric: ParsedMetric): EventSource[] {
  switch (metric.metric_type) {
    case 'mean':
      return [metric.source];
    case 'ratio':
      return [metric.numerator, metric.denominator];
    case 'funnel':
      return metric.series;
  }
}

function aggregate(current: { value: number; count: number }, source: EventSource, value: number): void {
  if (current.count === 0 || source.math === 'total' || source.math === 'sum' || source.math === 'avg') {
    current.value = current.count === 0 ? value : current.value + value;
  } else if (source.math === 'min') current.value = Math.min(current.value, value);
  else current.value = Math.max(current.value, value);
  current.count += 1;
}

/** Adds one event to a unit's aggregate (events come in time order). */
function addEvent(unit: MetricUnit, metric: ParsedMetric, event: PersonEvent, exposedAt: Date): void {
  switch (metric.metric_type) {
    case 'mean': {
      const num = { value: unit.num, count: unit.numCount };
      aggregate(num, metric.source, eventValue(event, metric.source));
      unit.num = num.value;
      unit.numCount = num.count;
      return;
    }
    case 'ratio': {
      if (matchesSource(event, metric.numerator)) {
        const num = { value: unit.num, count: unit.numCount };
        aggregate(num, metric.numerator, eventValue(event, metric.numerator));
        unit.num = num.value;
        unit.numCount = num.count;
      }
      if (matchesSource(event, metric.denominator)) {
        const den = { value: unit.den, count: unit.denCount };
        aggregate(den, metric.denominator, eventValue(event, metric.denominator));
        unit.den = den.value;
        unit.denCount = den.count;
      }
      return;
    }
    case 'funnel': {
      if (unit.step >= metric.series.length) return;
      const after = unit.stepAt ?? exposedAt;
      if (event.timestamp >= after && matchesSource(event, metric.series[unit.step])) {
        unit.step += 1;
        unit.stepAt = event.timestamp;
      }
    }
  }
}

function counts(metric: ParsedMetric, event: PersonEvent): boolean {
  return metricSources(metric).some((source) => matchesSource(event, source));
}

export interface ApplyOptions {
  projectId: number;
  /**
   * Keep metric events of persons not exposed (or exposed later) for an hour, to count them when
   * their exposure arrives in a later batch. Off for rebuilds, which replay events in time order.
   */
  keepPending: boolean;
}

/** The kept events of persons whose exposure was written now, per experiment. */
async function pendingNowCounted(db: Queryable, projectId: number, changed: Awaited<ReturnType<typeof upsertExposures>>): Promise<Map<number, PersonEvent[]>> {
  const byExperiment = new Map<number, PersonEvent[]>();
  const taken = await takePendingEvents(db, changed);
  if (taken.length === 0) return byExperiment;
  const stored = new Map((await eventsByUuid(db, projectId, [...new Set(taken.map((p) => p.eventUuid))])).map((row) => [row.uuid, row]));
  for (const { experimentId, eventUuid } of taken) {
    const row = stored.get(eventUuid);
    if (!row) continue;
    const list = byExperiment.get(experimentId) ?? [];
    list.push({ uuid: row.uuid, event: row.event, properties: row.properties, timestamp: row.timestamp, personId: row.person_id });
    byExperiment.set(experimentId, list);
  }
  return byExperiment;
}

/** Applies events of known persons to the experiments' state, in the caller's transaction. */
export async function applyEvents(db: Queryable, experiments: readonly LiveExperiment[], events: PersonEvent[], options: ApplyOptions): Promise<void> {
  if (experiments.length === 0 || events.length === 0) return;
  const byTime = (a: PersonEvent, b: PersonEvent) => a.timestamp.getTime() - b.timestamp.getTime();
  const ordered = [...events].sort(byTime);
  const exposures = experiments.flatMap((experiment) => exposuresOf(experiment, ordered));
  const changed = await upsertExposures(db, exposures);
  const pending = options.keepPending ? await pendingNowCounted(db, options.projectId, changed) : new Map<number, PersonEvent[]>();

  // Metric events: which (experiment, metric, person) they touch.
  const touched: Array<{ experiment: LiveExperiment; metric: ParsedMetric; event: PersonEvent }> = [];
  for (const experiment of experiments) {
    const own = pending.get(experiment.id);
    for (const event of own ? [...own, ...ordered].sort(byTime) : ordered) {
      if (!inDates(experiment, event.timestamp)) continue;
      if (experiment.exposure.filterTestAccounts && isTestAccountEvent(event)) continue;
      for (const metric of experiment.metrics) if (counts(metric, event)) touched.push({ experiment, metric, event });
    }
  }
  if (touched.length === 0) return;
  const times = await exposureTimes(db, [...new Set(touched.map((t) => t.experiment.id))], [...new Set(touched.map((t) => t.event.personId))]);
  const kept = new Map<string, PendingEvent>();
  const counted = touched.filter(({ experiment, metric, event }) => {
    const exposedAt = times.get(`${experiment.id}:${event.personId}`);
    if (exposedAt === undefined || event.timestamp < exposedAt) {
      kept.set(`${experiment.id}:${event.uuid}`, { experimentId: experiment.id, personId: event.personId, eventUuid: event.uuid, timestamp: event.timestamp });
      return false;
    }
    return metric.windowMs === null || event.timestamp.getTime() <= exposedAt.getTime() + metric.windowMs;
  });
  if (options.keepPending && kept.size > 0) {
    await addPendingEvents(db, [...kept.values()]);
    if (Math.random() < PRUNE_CHANCE) await prunePendingEvents(db);
  }
  if (counted.length === 0) return;

  const keys = new Map<string, { experimentId: number; metricUuid: string; personId: string }>();
  for (const { experiment, metric, event } of counted) {
    keys.set(unitKey(experiment.id, metric.uuid, event.personId), { experimentId: experiment.id, metricUuid: metric.uuid, personId: event.personId });
  }
  const stored = await lockMetricUnits(db, [...keys.values()]);
  const fresh = new Map<string, MetricUnit>();
  const written = new Set<string>();
  for (const { experiment, metric, event } of counted) {
    const key = unitKey(experiment.id, metric.uuid, event.personId);
    let unit = stored.get(key) ?? fresh.get(key);
    if (!unit) {
      unit = { experimentId: experiment.id, metricUuid: metric.uuid, personId: event.personId, num: 0, numCount: 0, den: 0, denCount: 0, step: 0, stepAt: null };
      fresh.set(key, unit);
    }
    addEvent(unit, metric, event, times.get(`${experiment.id}:${event.personId}`) as Date);
    written.add(key);
  }
  const updated = [...stored.entries()].filter(([key]) => written.has(key)).map(([, unit]) => unit);
  await writeMetricUnits(db, updated, [...fresh.values()]);
}
