/** What a condition needs while it is evaluated: the context, the clock, and flag dependencies (made by create-env.ts). */
import type { Tri } from './logic.ts';
import type { Subjects } from './subjects.ts';
import type { DependencyResolver, EvaluationContext, FlagProperty } from './types.ts';

export interface EvaluationEnv {
  ctx: EvaluationContext;
  now: Date;
  resolveDependency: DependencyResolver;
  /** The person and group subjects of `ctx`, built once per environment. */
  subjects: Subjects;
  /** One property of a condition set or cohort: cohort membership, a flag dependency, or a property. */
  matchMember(property: FlagProperty, properties: Record<string, unknown>, visiting?: Set<number>): Tri;
}
