/**
 * Per-project SDK views in memory (DESIGN: hot read paths never query per request).
 *
 * A view is built from two sources and rebuilt when either changes:
 * - the project's flags, from the FlagCache (kept current by flag writes in this process and by
 *   change notices from the others); a view remembers the flag set and its revision it was built
 *   from, so any flag change (but `last_called_at`, which views do not show) is seen on the next request;
 * - the project's cohorts and group types, loaded here in one query and dropped on `cohort`,
 *   `group_types` and `project` changes — from every process, this one's delivered by the writer's
 *   unit of work right after commit, so its next request sees them — and on a lost notice
 *   connection.
 *
 * The definitions bodies (JSON and ETag) are rendered once per view.
 */
import type { Pool } from '../db/pool.ts';
import { countCacheLookup } from '../kernel/metrics/metrics.ts';
import { ProjectCache } from '../kernel/project-cache.ts';
import type { FlagCache, ProjectFlags } from '../flags/cache.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { definitionsOf } from '../cohorts/definitions.ts';
import { ProjectView, type ProjectExtras } from './project-view.ts';
import { loadProjectExtras } from './store.ts';

interface CachedView {
  view: ProjectView;
  flags: ProjectFlags;
  revision: number;
  extras: ProjectExtras;
}

export class SdkCache {
  private readonly extras: ProjectCache<ProjectExtras>;
  private readonly views = new Map<number, CachedView>();

  constructor(
    private readonly pool: Pool,
    bus: ChangeBus,
    private readonly flagCache: FlagCache,
  ) {
    this.extras = new ProjectCache((projectId) => this.readExtras(projectId), 'sdk_extras');
    bus.subscribe((change) => {
      if (change.kind === 'cohort' || change.kind === 'group_types' || change.kind === 'project') this.invalidate(change.projectId);
    });
    bus.onResync(() => this.clear());
  }

  /** The project's current view (a project without flags gets an empty one). */
  async view(projectId: number): Promise<ProjectView> {
    const [flags, extras] = await Promise.all([this.flagCache.heard(projectId), this.extras.get(projectId)]);
    const cached = this.views.get(projectId);
    const fresh = cached !== undefined && cached.flags === flags && cached.revision === flags.revision && cached.extras === extras;
    countCacheLookup('sdk_views', fresh);
    if (fresh) return cached.view;
    const view = new ProjectView(projectId, flags.all().map((rendered) => rendered.record), extras);
    this.views.set(projectId, { view, flags, revision: flags.revision, extras });
    return view;
  }

  /**
   * The project's view as of now, for the management API's evaluations (evaluation_reasons,
   * my_flags, test_evaluation): flags proven current, cohorts and group types read now. Never kept.
   */
  async currentView(projectId: number): Promise<ProjectView> {
    const [flags, extras] = await Promise.all([this.flagCache.project(projectId), this.readExtras(projectId)]);
    return new ProjectView(projectId, flags.all().map((rendered) => rendered.record), extras);
  }

  private async readExtras(projectId: number): Promise<ProjectExtras> {
    const row = await loadProjectExtras(this.pool, projectId);
    return {
      cohorts: definitionsOf(row.cohorts),
      groupTypeMapping: Object.fromEntries(row.group_types.map((type) => [type.group_type_index, type.group_type])),
    };
  }

  /** Cohorts or group types of the project changed: read them again on the next request. */
  invalidate(projectId: number): void {
    this.extras.drop(projectId);
    this.views.delete(projectId);
  }

  clear(): void {
    this.extras.clear();
    this.views.clear();
  }
}
