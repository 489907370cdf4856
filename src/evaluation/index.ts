/** The flag evaluation engine: one entry point (`evaluateFlags`) and the pieces other features reuse. */
export { evaluateFlag, flagEvaluator, payloadFor } from './engine.ts';
export { evaluateFlags, FlagSet } from './flag-set.ts';
export { dependencyChains, flagEvaluatesTo } from './dependencies.ts';
export { flagHash, holdoutHash, inRollout, pickVariant } from './hash.ts';
export { matchProperty } from './operators.ts';
export { describeReason } from './reasons.ts';
export type {
  CohortDefinition,
  DependencyResolver,
  DependencyValue,
  EvaluationContext,
  EvaluationFlag,
  FlagReason,
  FlagResult,
  PropertyGroup,
  ReasonCode,
} from './types.ts';
