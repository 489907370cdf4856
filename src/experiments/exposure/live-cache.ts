/**
 * Each project's launched experiments as ingestion reads them, kept per process so that a batch
 * does not read them again: dropped when an experiment of the project is written (its notice), when
 * one of the flags they use changes (key, variants), when the project changes, and entirely when the
 * notice connection was lost. This process's own writes are heard right after their commit; another
 * process's within its notice's lag (see docs/experiments.md, "How results are kept").
 */
import type { Pool } from '../../db/pool.ts';
import type { Change, ChangeBus } from '../../kernel/changes/bus.ts';
import { ProjectCache } from '../../kernel/project-cache.ts';
import { liveExperiments, stillTakingEvents, type LiveExperiment } from './live.ts';

interface ProjectLive {
  experiments: LiveExperiment[];
  flagIds: Set<number>;
}

export class LiveExperimentsCache {
  private readonly projects: ProjectCache<ProjectLive>;

  constructor(pool: Pool, bus: ChangeBus) {
    this.projects = new ProjectCache(async (projectId) => {
      const experiments = await liveExperiments(pool, projectId);
      return { experiments, flagIds: new Set(experiments.map((e) => e.flagId)) };
    }, 'experiments_live');
    bus.subscribe((change) => this.hear(change));
    bus.onResync(() => this.projects.clear());
  }

  /** The experiments taking events now (an experiment ended over a day ago drops out without a reload). */
  async live(projectId: number, now: Date = new Date()): Promise<LiveExperiment[]> {
    const { experiments } = await this.projects.get(projectId);
    return experiments.some((e) => !stillTakingEvents(e, now)) ? experiments.filter((e) => stillTakingEvents(e, now)) : experiments;
  }

  private hear(change: Change): void {
    if (change.kind === 'experiment' || change.kind === 'project') this.projects.drop(change.projectId);
    if (change.kind === 'flag') {
      const cached = this.projects.peek(change.projectId);
      if (cached === undefined || cached.flagIds.has(change.id)) this.projects.drop(change.projectId);
    }
  }
}
