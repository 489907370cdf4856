import { matchCohortProperty } from './cohorts.ts';
import { flagEvaluatesTo } from './dependencies.ts';
import type { EvaluationEnv } from './env.ts';
import { MISSING } from './logic.ts';
import { matchProperty } from './operators.ts';
import { Subjects } from './subjects.ts';
import type { DependencyResolver, EvaluationContext } from './types.ts';

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
