/**
 * Flag dependencies (`{type: "flag", key: <flag id, or key once rewritten for SDKs>, value,
 * operator: "flag_evaluates_to"}`).
 */
import type { EvaluationFlag, FlagProperty } from './types.ts';
import { looseText } from './values.ts';

/** Live flags by id and key; a reference is a flag id (as stored) or a flag key (as SDKs get it). */
export class FlagIndex {
  readonly byId = new Map<number, EvaluationFlag>();
  readonly byKey = new Map<string, EvaluationFlag>();

  constructor(flags: Iterable<EvaluationFlag>) {
    for (const flag of flags) {
      if (flag.deleted) continue;
      this.byId.set(flag.id, flag);
      this.byKey.set(flag.key, flag);
    }
  }

  resolve(reference: unknown): EvaluationFlag | null {
    const text = looseText(reference);
    if (/^\d+$/.test(text)) {
      const byId = this.byId.get(Number(text));
      if (byId) return byId;
    }
    return this.byKey.get(text) ?? null;
  }
}

/** The `flag` conditions of a flag's condition sets, in order. */
export function dependencyProperties(flag: EvaluationFlag): FlagProperty[] {
  return (flag.filters?.groups ?? []).flatMap((group) =>
    (group.properties ?? []).filter((property) => property?.type === 'flag'),
  );
}

/**
 * PostHog's `dependency_chain` for every live flag, by flag id: the keys of the flag's dependencies,
 * transitively, each after the flags it depends on, ending with the flag itself (`[key]` when it
 * has none). `[]` when a dependency anywhere below it is missing (unknown or deleted) or the
 * dependencies form a cycle. Inactive flags are walked like any other.
 */
export function dependencyChains(flags: Iterable<EvaluationFlag>): Map<number, string[]> {
  const index = new FlagIndex(flags);
  const chains = new Map<number, string[]>();
  for (const flag of index.byId.values()) chains.set(flag.id, chainOf(flag, index));
  return chains;
}

function chainOf(target: EvaluationFlag, index: FlagIndex): string[] {
  const chain: string[] = [];
  const state = new Map<number, 'visiting' | 'done'>();
  const visit = (flag: EvaluationFlag): boolean => {
    const seen = state.get(flag.id);
    if (seen === 'done') return true;
    if (seen === 'visiting') return false; // cycle
    state.set(flag.id, 'visiting');
    for (const property of dependencyProperties(flag)) {
      const dependency = index.resolve(property.key);
      if (!dependency || !visit(dependency)) return false;
    }
    state.set(flag.id, 'done');
    chain.push(flag.key);
    return true;
  };
  return visit(target) ? chain : [];
}

/**
 * `flag_evaluates_to`: `true` matches an enabled dependency (any variant), `false` only a disabled
 * one, a string only that exact variant; numbers, lists and anything else never match.
 */
export function flagEvaluatesTo(expected: unknown, value: { enabled: boolean; variant: string | null }): boolean {
  if (expected === true) return value.enabled;
  if (expected === false) return !value.enabled;
  if (typeof expected === 'string') return value.enabled && value.variant === expected;
  return false;
}
