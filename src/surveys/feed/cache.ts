import type { Pool } from '../../db/pool.ts';
import type { Change, ChangeBus } from '../../kernel/changes/bus.ts';
import { ProjectCache } from '../../kernel/project-cache.ts';
import { renderFeed, type RenderedFeed } from './render.ts';
import { feedRows } from './store.ts';

/**
 * Each project's rendered feed, read once and kept until something it shows changes: a survey of
 * the project, one of the flags it names (key, deletion), or the project itself. This process's own
 * changes are heard right after their commit, so nothing here depends on writers knowing about this
 * cache. A lost notice connection empties the cache.
 */
export class SurveyFeedCache {
  private readonly feeds: ProjectCache<RenderedFeed>;

  constructor(pool: Pool, bus: ChangeBus) {
    this.feeds = new ProjectCache(async (projectId) => renderFeed(await feedRows(pool, projectId)), 'survey_feed');
    bus.subscribe((change) => this.hear(change));
    bus.onResync(() => this.feeds.clear());
  }

  async feed(projectId: number): Promise<RenderedFeed> {
    return this.feeds.get(projectId);
  }

  private hear(change: Change): void {
    if (change.kind === 'survey' || change.kind === 'project') this.feeds.drop(change.projectId);
    if (change.kind === 'flag') {
      // Only the flags the feed names matter.
      const cached = this.feeds.peek(change.projectId);
      if (cached === undefined || cached.flagIds.has(change.id)) this.feeds.drop(change.projectId);
    }
  }
}
