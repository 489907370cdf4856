import type { PoolClient } from '../../db/pool.ts';
import type { EventProcessor } from '../../events/pipeline.ts';
import type { IncomingEvent } from '../../events/types.ts';
import { applyEvents, type PersonEvent } from './apply.ts';
import { liveExperiments, type LiveExperiment } from './live.ts';
import { personsOfEvents } from './state-store.ts';

/** Event names the experiments read; null in the set = any event. */
function namesRead(experiments: readonly LiveExperiment[]): Set<string | null> {
  const names = new Set<string | null>();
  for (const experiment of experiments) {
    names.add(experiment.exposure.event);
    for (const metric of experiment.metrics) {
      const sources = metric.metric_type === 'mean' ? [metric.source] : metric.metric_type === 'ratio' ? [metric.numerator, metric.denominator] : metric.series;
      for (const source of sources) names.add(source.event);
    }
  }
  return names;
}

/**
 * Keeps every launched experiment's exposures and per-person metric aggregates up to date in the
 * batch's transaction: one read of the project's launched experiments per batch, and for a batch
 * holding events they read, the events' persons, the exposure upsert, the exposure times and the
 * aggregates (read locked, then written).
 */
export function experimentsProcessor(): EventProcessor {
  return {
    async process(client: PoolClient, projectId: number, events: IncomingEvent[]) {
      const experiments = await liveExperiments(client, projectId);
      if (experiments.length === 0) return;
      const names = namesRead(experiments);
      const relevant = names.has(null) ? events : events.filter((event) => names.has(event.event));
      if (relevant.length === 0) return;
      const persons = await personsOfEvents(client, projectId, relevant.map((event) => event.uuid));
      const withPersons: PersonEvent[] = [];
      for (const event of relevant) {
        const personId = persons.get(event.uuid.toLowerCase());
        if (personId !== undefined) withPersons.push({ uuid: event.uuid, event: event.event, properties: event.properties, timestamp: event.timestamp, personId });
      }
      await applyEvents(client, experiments, withPersons, { projectId, keepPending: true });
    },
  };
}
