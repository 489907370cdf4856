export { checkKeyFormat, KEY_MAX_LENGTH, parseKeyField, validateKeyFormat } from './key.ts';
export { validateFilters } from './filters.ts';
export type { FilterValidationContext, FlagLookup } from './lookup.ts';
export { dependencyIdsOf } from './dependencies.ts';
export { checkEvaluationTagsSubset, normalizeTags } from './tags.ts';
export {
  BUCKETING_IDENTIFIERS,
  EVALUATION_RUNTIMES,
  validateBucketingIdentifier,
  validateEvaluationRuntime,
  type BucketingIdentifier,
} from './choices.ts';
export { parseAbsoluteDate, parseRelativeDate, parseRelativeOrAbsoluteDate } from '../../targeting/dates.ts';
export { FLAG_OPERATORS, OPERATOR_ALIASES, type FlagOperator } from '../../targeting/operators.ts';
