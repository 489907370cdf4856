import type { FlagFilters } from '../../targeting/types.ts';
import { parseIntegerId } from './cohorts.ts';
import { filtersError } from '../../targeting/errors.ts';
import type { FilterValidationContext } from './lookup.ts';
import { allProperties } from './property-types.ts';
import { displayValue, isPlainObject } from './values.ts';

/**
 * Ids of the flags these filters depend on (`type: "flag"` conditions), in order. Also used on
 * stored filters of other flags, so it tolerates any shape and skips whatever is not an id.
 */
export function dependencyIdsOf(filters: unknown): number[] {
  const groups = isPlainObject(filters) && Array.isArray(filters.groups) ? filters.groups : [];
  return groups
    .flatMap((group) => (isPlainObject(group) && Array.isArray(group.properties) ? group.properties : []))
    .filter((property) => isPlainObject(property) && property.type === 'flag')
    .map((property) => parseIntegerId(isPlainObject(property) ? property.key : null))
    .filter((id): id is number => id !== null);
}

/**
 * Flag dependencies: each `flag` condition names, by integer id, a live and
 * enabled flag of the project; a flag may not depend on itself; and the new filters may not close
 * a cycle (depth-first search over the project's live flags, this flag's filters substituted).
 */
export async function checkFlagDependencies(filters: FlagFilters, ctx: FilterValidationContext): Promise<void> {
  const references = allProperties(filters)
    .filter((property) => property.type === 'flag')
    .map((property) => ({ raw: property.key, id: parseIntegerId(property.key) }));
  if (references.length === 0) return;

  const ids = references.map((reference) => reference.id).filter((id): id is number => id !== null);
  const found = new Map((await ctx.lookup.flagsByIds([...new Set(ids)])).map((flag) => [flag.id, flag]));
  for (const { raw, id } of references) {
    if (id === null) {
      throw filtersError(
        `Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${displayValue(raw)}'`,
      );
    }
    const flag = found.get(id);
    if (!flag) throw filtersError(`Flag dependency references non-existent flag with ID ${id}`);
    if (!flag.active) {
      throw filtersError(
        `Cannot create dependency on disabled flag '${flag.key}' (ID: ${id}). Flag dependencies must reference active flags only.`,
      );
    }
  }

  const self = ids.map((id) => found.get(id)).find((flag) => flag && isCurrentFlag(flag, ctx));
  if (self) throw filtersError(`Feature flag '${ctx.flagKey ?? self.key}' cannot depend on itself`);

  if (ctx.flagKey === null) return;
  const cycle = await findCycle(filters, ctx, ctx.flagKey);
  if (cycle) throw filtersError(`Circular dependency detected: ${cycle.join(' → ')}`);
}

function isCurrentFlag(flag: { id: number; key: string }, ctx: FilterValidationContext): boolean {
  return ctx.flagId !== null ? flag.id === ctx.flagId : flag.key === ctx.flagKey;
}

/** The keys along the first cycle reachable from this flag (`a → b → a`), or null. */
async function findCycle(filters: FlagFilters, ctx: FilterValidationContext, flagKey: string): Promise<string[] | null> {
  // Nodes are flag ids; a flag being created has none yet, so it is the node `null`.
  type Node = number | null;
  const graph = new Map<Node, { key: string; dependsOn: number[] }>();
  for (const flag of await ctx.lookup.allLiveFlags()) {
    graph.set(flag.id, { key: flag.key, dependsOn: dependencyIdsOf(flag.filters) });
  }
  const start: Node = ctx.flagId;
  graph.set(start, { key: flagKey, dependsOn: dependencyIdsOf(filters) });

  const finished = new Set<Node>(); // explored completely: no cycle is reachable from them
  const path: Node[] = [];
  const visit = (id: Node): string[] | null => {
    const at = path.indexOf(id);
    if (at !== -1) return [...path.slice(at), id].map((node) => graph.get(node)?.key ?? String(node));
    const node = graph.get(id);
    if (!node || finished.has(id)) return null;
    path.push(id);
    for (const dependency of node.dependsOn) {
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    path.pop();
    finished.add(id);
    return null;
  };
  return visit(start);
}
