import type { ContributionPoint, ContributionSource } from '../db/unit-of-work.ts';

/**
 * A place where areas contribute to another area without either importing the other's plugin:
 * the events area opens one for its processors, and the sdk and surveys areas add theirs. The
 * point is declared by the area that reads it; the contributions live in the app's `Extensions`.
 */
export class ExtensionPoint<T> implements ContributionPoint<T> {
  declare readonly contributionType?: T;
  constructor(readonly name: string) {}
}

/** One app's contributions. Contributions come while areas register; once the app is ready the lists are final. */
export class Extensions implements ContributionSource {
  private readonly lists = new Map<ContributionPoint<unknown>, unknown[]>();
  private sealed = false;

  contribute<T>(point: ExtensionPoint<T>, ...items: T[]): void {
    if (this.sealed) throw new Error(`${point.name}: contributions are closed once the app is ready`);
    this.items(point).push(...items);
  }

  /** The contributions in the order the areas were registered: the same array as it grows, final once the app is ready. */
  list<T>(point: ContributionPoint<T>): readonly T[] {
    return this.items(point);
  }

  private items<T>(point: ContributionPoint<T>): T[] {
    let items = this.lists.get(point);
    if (!items) this.lists.set(point, (items = []));
    return items as T[];
  }

  seal(): void {
    this.sealed = true;
  }
}
