/**
 * A project's live flags, indexed and prepared once, then evaluated for one person at a time:
 * each flag at most once per person (dependencies included), with no per-flag lookups beyond the
 * dependencies'. `evaluateFlags` builds one for a single call; callers that evaluate the same flags
 * for many people (the SDK endpoints) keep one.
 */
import { dependencyChains, FlagIndex } from './dependencies.ts';
import { evaluatePrepared } from './engine.ts';
import { createEnv } from './create-env.ts';
import { prepareFlag, type PreparedFlag } from './prepared.ts';
import type { DependencyResolver, EvaluationContext, EvaluationFlag, FlagResult } from './types.ts';

export class FlagSet {
  readonly index: FlagIndex;
  /** The live flags (deleted ones left out), one per id. */
  readonly flags: readonly EvaluationFlag[];
  private readonly positions = new Map<number, number>();
  private readonly prepared: (PreparedFlag | undefined)[];
  private chains: Map<number, string[]> | null = null;

  constructor(flags: Iterable<EvaluationFlag>) {
    this.index = new FlagIndex(flags);
    this.flags = [...this.index.byId.values()];
    this.flags.forEach((flag, position) => this.positions.set(flag.id, position));
    this.prepared = new Array<PreparedFlag | undefined>(this.flags.length);
  }

  /**
   * Every flag of the set, or only `only` (flags outside the set are evaluated too, their
   * dependencies resolved in the set), for one context; the results in the same order.
   */
  evaluate(ctx: EvaluationContext, only?: readonly EvaluationFlag[]): FlagResult[] {
    const count = this.flags.length;
    const done = new Array<FlagResult | undefined>(count);
    const running = new Uint8Array(count);

    const evaluateAt = (position: number): FlagResult => {
      const cached = done[position];
      if (cached) return cached;
      running[position] = 1;
      try {
        const result = evaluatePrepared(this.preparedAt(position), env);
        done[position] = result;
        return result;
      } finally {
        running[position] = 0;
      }
    };

    const resolveDependency: DependencyResolver = (property) => {
      const target = this.index.resolve(property.key);
      if (!target) return null;
      const position = this.positions.get(target.id)!;
      if (running[position] === 1) return null;
      if ((this.dependencyChains().get(target.id) ?? []).length === 0) return null;
      const result = evaluateAt(position);
      return result.reason.code === 'missing_dependency' ? null : { enabled: result.enabled, variant: result.variant };
    };

    const env = createEnv(ctx, resolveDependency);
    const results = new Array<FlagResult>(only ? only.length : count);
    if (!only) {
      for (let position = 0; position < count; position++) results[position] = evaluateAt(position);
      return results;
    }
    for (let i = 0; i < only.length; i++) {
      const position = this.positions.get(only[i].id);
      results[i] = position === undefined ? evaluatePrepared(prepareFlag(only[i]), env) : evaluateAt(position);
    }
    return results;
  }

  private preparedAt(position: number): PreparedFlag {
    return (this.prepared[position] ??= prepareFlag(this.flags[position]));
  }

  private dependencyChains(): Map<number, string[]> {
    return (this.chains ??= dependencyChains(this.flags));
  }
}

/**
 * Evaluates every live flag (deleted ones are skipped) for one person, or only `onlyKeys`.
 * Dependencies are evaluated from all the flags given, once each, whatever `onlyKeys` holds.
 */
export function evaluateFlags(
  flags: readonly EvaluationFlag[] | FlagSet,
  ctx: EvaluationContext,
  options: { onlyKeys?: readonly string[] } = {},
): Map<string, FlagResult> {
  const set = flags instanceof FlagSet ? flags : new FlagSet(flags);
  const only = options.onlyKeys ? new Set(options.onlyKeys) : null;
  const chosen = only ? set.flags.filter((flag) => only.has(flag.key)) : set.flags;
  const values = set.evaluate(ctx, chosen);
  const results = new Map<string, FlagResult>();
  chosen.forEach((flag, i) => results.set(flag.key, values[i]));
  return results;
}
