/**
 * The one reading of events into experiment state, for ingestion (each batch) and for rebuilds
 * (stored events replayed): exposures first, then every metric event of an exposed person at or
 * after their first exposure, within the metric's window and the experiment's dates. Alongside the
 * per-person rows it keeps the per-variant sums (metric sufficient statistics, exposures per day)
 * as deltas, so that results read a few rows whatever the number of persons.
 */
import type { WriteTx } from '../../db/unit-of-work.ts';
import { isoDay } from '../../kernel/time.ts';
import { eventValue, isTestAccountEvent, matchesSource, type EventLike } from '../metrics/match.ts';
import type { EventSource, ParsedMetric } from '../metrics/types.ts';
import { contributionOf, effectiveVariant, NO_EVENTS, SumsDeltas } from './contribution.ts';
import type { LiveExperiment } from './live.ts';
import { lockExperimentStates } from './state-locks.ts';
import {
  exposeAndRead,
  exposureKey,
  unitKey,
  writeState,
  type DayDelta,
  type ExposeAndRead,
  type ExposureWrite,
  type LookBack,
  type MetricUnit,
  type StoredExposure,
} from './state-store.ts';

export interface PersonEvent extends EventLike {
  uuid: string;
  personId: string;
  timestamp: Date;
  /** The distinct id the event came with (ingestion); a rebuild does not need it. */
  distinctId?: string;
}

export interface ApplyOptions {
  projectId: number;
  /**
   * Count the stored metric events of a person that an exposure written now makes count (events of
   * earlier batches stamped after it). Off for rebuilds, which replay events in time order.
   */
  lookBack: boolean;
}
/** Sums are spread over this many rows per (experiment, metric, variant); a batch writes to one. */
const SHARDS = 32;

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

function exposureWrites(experiment: LiveExperiment, events: PersonEvent[]): ExposureWrite[] {
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

export function metricSources(metric: ParsedMetric): EventSource[] {
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

const sameValues = (a: MetricUnit, b: MetricUnit) =>
  a.num === b.num && a.numCount === b.numCount && a.den === b.den && a.denCount === b.denCount && a.step === b.step && a.stepAt?.getTime() === b.stepAt?.getTime();

type Days = Map<string, DayDelta>;

function addDay(days: Days, experimentId: number, variant: string, at: Date, n: number): void {
  const day = isoDay(at);
  const key = `${experimentId}\u0000${variant}\u0000${day}`;
  const delta = days.get(key) ?? { experimentId, variant, day, n: 0 };
  delta.n += n;
  days.set(key, delta);
}

/**
 * The sums and daily counts the exposures written now move: a new person adds a sample to every
 * metric of their variant, and a person whose variant or first day moved takes their contributions
 * (from their stored aggregates) along.
 */
function exposureDeltas(experiments: readonly LiveExperiment[], state: ExposeAndRead, sums: SumsDeltas, days: Days): void {
  const byId = new Map(experiments.map((e) => [e.id, e]));
  for (const after of state.changed) {
    const experiment = byId.get(after.experimentId);
    if (!experiment) continue;
    const handling = experiment.exposure.multipleVariantHandling;
    const old = state.before.get(exposureKey(after.experimentId, after.personId));
    const variant = effectiveVariant(after, handling);
    if (!old) {
      for (const metric of experiment.metrics) sums.add(experiment.id, metric, variant, contributionOf(metric, NO_EVENTS), 1, true);
      addDay(days, experiment.id, variant, after.firstSeenAt, 1);
      continue;
    }
    const oldVariant = effectiveVariant(old, handling);
    if (oldVariant !== variant || isoDay(old.firstSeenAt) !== isoDay(after.firstSeenAt)) {
      addDay(days, experiment.id, oldVariant, old.firstSeenAt, -1);
      addDay(days, experiment.id, variant, after.firstSeenAt, 1);
    }
    if (oldVariant === variant) continue;
    for (const metric of experiment.metrics) {
      const contribution = contributionOf(metric, state.units.get(unitKey(experiment.id, metric.uuid, after.personId)) ?? NO_EVENTS);
      sums.add(experiment.id, metric, oldVariant, contribution, -1, true);
      sums.add(experiment.id, metric, variant, contribution, 1, true);
    }
  }
}

/** The (experiment, metric, event) triples an experiment counts among `events` (its dates and test-account rule applied). */
function metricEvents(experiment: LiveExperiment, events: readonly PersonEvent[]): Array<{ experiment: LiveExperiment; metric: ParsedMetric; event: PersonEvent }> {
  const touched: Array<{ experiment: LiveExperiment; metric: ParsedMetric; event: PersonEvent }> = [];
  for (const event of events) {
    if (!inDates(experiment, event.timestamp)) continue;
    if (experiment.exposure.filterTestAccounts && isTestAccountEvent(event)) continue;
    for (const metric of experiment.metrics) if (counts(metric, event)) touched.push({ experiment, metric, event });
  }
  return touched;
}

/** What the exposures written may make count from earlier batches: the persons' distinct ids in the batch, the metrics' event names. */
function lookBackOf(experiments: readonly LiveExperiment[], writes: readonly ExposureWrite[], events: readonly PersonEvent[]): LookBack {
  const exposed = new Set(writes.map((write) => write.personId));
  const distinctIds = new Map<string, { personId: string; distinctId: string }>();
  for (const { personId, distinctId } of events) {
    if (distinctId !== undefined && exposed.has(personId)) distinctIds.set(`${personId}\u0000${distinctId}`, { personId, distinctId });
  }
  const names = new Set<string | null>(experiments.flatMap((experiment) => experiment.metrics.flatMap((metric) => metricSources(metric).map((source) => source.event))));
  return { distinctIds: [...distinctIds.values()], eventNames: names.has(null) ? null : [...names].filter((name): name is string => name !== null) };
}

/**
 * Applies events of known persons to the experiments' state, in the caller's transaction, in three
 * statements whatever the batch: the state's locks (`lockExperimentStates`), one that writes the
 * exposures and reads what the metrics need (`exposeAndRead`), one that writes the rest (`writeState`).
 */
export async function applyEvents(db: WriteTx, experiments: readonly LiveExperiment[], events: PersonEvent[], options: ApplyOptions): Promise<void> {
  if (experiments.length === 0 || events.length === 0) return;
  const byTime = (a: PersonEvent, b: PersonEvent) => a.timestamp.getTime() - b.timestamp.getTime();
  const ordered = [...events].sort(byTime);
  const sums = new SumsDeltas();
  const days: Days = new Map();
  const shard = Math.floor(Math.random() * SHARDS);
  const writes = experiments.flatMap((experiment) => exposureWrites(experiment, ordered));

  // Every (experiment, person) the batch may touch: exposed now or with metric events; and all their aggregates.
  const pairs = new Map<string, { experiment: LiveExperiment; personId: string }>();
  const byId = new Map(experiments.map((e) => [e.id, e]));
  for (const write of writes) pairs.set(exposureKey(write.experimentId, write.personId), { experiment: byId.get(write.experimentId) as LiveExperiment, personId: write.personId });
  for (const experiment of experiments) {
    for (const { event } of metricEvents(experiment, ordered)) pairs.set(exposureKey(experiment.id, event.personId), { experiment, personId: event.personId });
  }
  if (pairs.size === 0) return;
  await lockExperimentStates(db, new Set([...pairs.values()].map(({ experiment }) => experiment.id)), [...pairs.keys()]);
  const state = await exposeAndRead(db, options.projectId, {
    pairs: [...pairs.values()].map(({ experiment, personId }) => ({ experimentId: experiment.id, personId })),
    writes,
    metrics: experiments.flatMap((experiment) => experiment.metrics.map((metric) => ({ experimentId: experiment.id, metricUuid: metric.uuid }))),
    lookBack: options.lookBack ? lookBackOf(experiments, writes, events) : null,
  });
  exposureDeltas(experiments, state, sums, days);
  const exposures = new Map(state.before);
  for (const exposure of state.changed) exposures.set(exposureKey(exposure.experimentId, exposure.personId), exposure);
  // Events of earlier batches that the exposures written now make count (this batch's own come in `ordered`).
  const inBatch = new Set(events.map((event) => event.uuid));
  const earlier = new Map<number, PersonEvent[]>();
  for (const event of state.earlier) if (!inBatch.has(event.uuid)) earlier.set(event.experimentId, [...(earlier.get(event.experimentId) ?? []), event]);

  // Metric events: which (experiment, metric, person) they touch, the earlier batches' events among them.
  const touched = experiments.flatMap((experiment) => {
    const own = earlier.get(experiment.id);
    return metricEvents(experiment, own ? [...own, ...ordered].sort(byTime) : ordered);
  });
  const stored = state.units;
  const counted = touched.filter(({ experiment, metric, event }) => {
    const exposedAt = exposures.get(exposureKey(experiment.id, event.personId))?.firstSeenAt;
    if (exposedAt === undefined || event.timestamp < exposedAt) return false;
    return metric.windowMs === null || event.timestamp.getTime() <= exposedAt.getTime() + metric.windowMs;
  });

  const before = new Map([...stored].map(([key, unit]) => [key, { ...unit }]));
  const fresh = new Map<string, MetricUnit>();
  const written = new Map<string, { experiment: LiveExperiment; metric: ParsedMetric; unit: MetricUnit }>();
  for (const { experiment, metric, event } of counted) {
    const key = unitKey(experiment.id, metric.uuid, event.personId);
    let unit = stored.get(key) ?? fresh.get(key);
    if (!unit) {
      unit = { experimentId: experiment.id, metricUuid: metric.uuid, personId: event.personId, num: 0, numCount: 0, den: 0, denCount: 0, step: 0, stepAt: null };
      fresh.set(key, unit);
    }
    const exposure = exposures.get(exposureKey(experiment.id, event.personId)) as StoredExposure;
    addEvent(unit, metric, event, exposure.firstSeenAt);
    written.set(key, { experiment, metric, unit });
  }
  for (const [key, { experiment, metric, unit }] of written) {
    const exposure = exposures.get(exposureKey(experiment.id, unit.personId)) as StoredExposure;
    const variant = effectiveVariant(exposure, experiment.exposure.multipleVariantHandling);
    sums.change(experiment.id, metric, variant, contributionOf(metric, before.get(key) ?? NO_EVENTS), contributionOf(metric, unit));
  }
  await writeState(db, {
    // A stored aggregate the events left as it was (a funnel already completed) is not rewritten.
    updated: [...stored.entries()].filter(([key, unit]) => written.has(key) && !sameValues(unit, before.get(key) as MetricUnit)).map(([, unit]) => unit),
    inserted: [...fresh.values()],
    sums: sums.list(),
    days: [...days.values()].filter((d) => d.n !== 0),
    shard,
  });
}
