import { countCacheLookup } from './metrics/metrics.ts';

const MAX_LOAD_ATTEMPTS = 3;

/**
 * One value per project, loaded on first use (one load at a time per project) and kept until it is
 * dropped. Every change to a project bumps its generation, so a load that raced with a change is
 * not kept (it is read again, and served uncached if changes keep coming).
 */
export class ProjectCache<T> {
  private readonly values = new Map<number, T>();
  private readonly loads = new Map<number, Promise<T>>();
  private readonly generations = new Map<number, number>();

  /** `name`: the cache's label in the hit/miss metric. */
  constructor(
    private readonly loader: (projectId: number) => Promise<T>,
    private readonly name = 'project',
  ) {}

  get(projectId: number): T | Promise<T> {
    const cached = this.values.get(projectId);
    countCacheLookup(this.name, cached !== undefined);
    if (cached !== undefined) return cached;
    let load = this.loads.get(projectId);
    if (!load) {
      load = this.load(projectId).finally(() => this.loads.delete(projectId));
      this.loads.set(projectId, load);
    }
    return load;
  }

  /** The loaded value, if any, without loading. */
  peek(projectId: number): T | undefined {
    return this.values.get(projectId);
  }

  /** The projects whose value is loaded. */
  loadedIds(): number[] {
    return [...this.values.keys()];
  }

  /** Something in the project changed; a load already under way will not be kept. */
  changed(projectId: number): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
  }

  drop(projectId: number): void {
    this.changed(projectId);
    this.values.delete(projectId);
  }

  clear(): void {
    for (const projectId of new Set([...this.values.keys(), ...this.loads.keys()])) this.changed(projectId);
    this.values.clear();
  }

  private async load(projectId: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const generation = this.generations.get(projectId) ?? 0;
      const value = await this.loader(projectId);
      if ((this.generations.get(projectId) ?? 0) === generation) {
        this.values.set(projectId, value);
        return value;
      }
      if (attempt === MAX_LOAD_ATTEMPTS) return value;
    }
  }
}
