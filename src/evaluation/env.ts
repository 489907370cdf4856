/** What a condition needs while it is evaluated: the context, the clock, and flag dependencies. */
import { matchCohortProperty } from './cohorts.ts';
import { flagEvaluatesTo } from './dependencies.ts';
import { MISSING, type Tri } from './logic.ts';
import { matchProperty } from './operators.ts';
import { Subjects } from './subjects.ts';
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

export function createEnv(ctx: EvaluationContext, resolveDependency: DependencyResolver): EvaluationEnv {
  const env: EvaluationEnv = {
    ctx,
    now: ctx.now ?? new Date(),
    resolveDependency,
    subjects: new Subjects(ctx),
    matchMember(property, properties, visiting) {
      if (property.type === 'cohort') return matchCohortProperty(property, properties, env, visiting);
      if (property.type === 'flag') {
        const value = resolveDependency(property);
        return value === null ? MISSING : flagEvaluatesTo(property.value, value);
      }
      return matchProperty(property, properties, env.now);
    },
  };
  return env;
}
