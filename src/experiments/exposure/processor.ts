import type { WriteTx } from '../../db/unit-of-work.ts';
import type { EventProcessor } from '../../events/pipeline.ts';
import type { IncomingEvent } from '../../events/types.ts';
import type { UnitOfWork } from '../../db/unit-of-work.ts';
import { applyEvents, metricSources, type PersonEvent } from './apply.ts';
import type { LiveExperimentsCache } from './live-cache.ts';
import type { LiveExperiment } from './live.ts';

/** Event names the experiments read; null in the set = any event. */
export function namesRead(experiments: readonly LiveExperiment[]): Set<string | null> {
  const names = new Set<string | null>();
  for (const experiment of experiments) {
    names.add(experiment.exposure.event);
    for (const metric of experiment.metrics) {
      for (const source of metricSources(metric)) names.add(source.event);
    }
  }
  return names;
}

/**
 * Keeps every launched experiment's exposures and per-person metric aggregates up to date in the
 * batch's transaction: the project's launched experiments come from this process's cache (no
 * statement), and a batch holding events they read costs two statements (`applyEvents`).
 */
export function experimentsProcessor(live: LiveExperimentsCache): EventProcessor {
  return {
    async process(client: WriteTx, projectId: number, events: IncomingEvent[], _unit: UnitOfWork, persons: ReadonlyMap<string, string>) {
      const experiments = await live.live(projectId);
      if (experiments.length === 0) return;
      const names = namesRead(experiments);
      const relevant = names.has(null) ? events : events.filter((event) => names.has(event.event));
      if (relevant.length === 0) return;
      const withPersons: PersonEvent[] = [];
      for (const event of relevant) {
        const personId = persons.get(event.distinctId);
        if (personId !== undefined) withPersons.push({ uuid: event.uuid, event: event.event, properties: event.properties, timestamp: event.timestamp, personId, distinctId: event.distinctId });
      }
      await applyEvents(client, experiments, withPersons, { projectId, lookBack: true });
    },
  };
}
