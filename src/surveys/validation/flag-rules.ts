import type { SurveyWriteBody } from '../schemas.ts';
import { objectError } from '../errors.ts';
import type { SurveyLookup } from './context.ts';
import { isPlainObject, isTruthy, pythonStr } from './python.ts';

type LinkedFlag = NonNullable<Awaited<ReturnType<SurveyLookup['flagById']>>>;

/** Rule 1: a (non-zero) `linked_flag_id` names a live flag of the project. Answers that flag. */
export async function checkLinkedFlag(data: SurveyWriteBody, lookup: SurveyLookup): Promise<LinkedFlag | null> {
  if (!isTruthy(data.linked_flag_id)) return null;
  const flag = await lookup.flagById(data.linked_flag_id as number);
  if (!flag) throw objectError('Feature Flag with this ID does not exist');
  return flag;
}

/** Rule 2: a (non-zero) `targeting_flag_id` names a live flag of the project. */
export async function checkTargetingFlag(data: SurveyWriteBody, lookup: SurveyLookup): Promise<void> {
  if (!isTruthy(data.targeting_flag_id)) return;
  if (!(await lookup.flagById(data.targeting_flag_id as number))) {
    throw objectError('Targeting Feature Flag with this ID does not exist');
  }
}

/**
 * Rule 3: `conditions.linkedFlagVariant` names a variant of the linked flag given in this same
 * request (`"any"` matches every flag). A stored linked flag does not count, as in PostHog.
 */
export function checkLinkedFlagVariant(data: SurveyWriteBody, linkedFlag: LinkedFlag | null): void {
  const variant = isPlainObject(data.conditions) ? data.conditions.linkedFlagVariant : undefined;
  if (!isTruthy(variant)) return;
  if (linkedFlag) {
    if (variant === 'any') return;
    const available = variantKeys(linkedFlag);
    if (available.includes(variant as string)) return;
    if (available.length > 0) {
      throw objectError(`Feature flag variant '${pythonStr(variant)}' does not exist. Available variants: ${available.join(', ')}`);
    }
    throw objectError(`Feature flag variant '${pythonStr(variant)}' specified but the linked feature flag has no variants`);
  }
  // No linked flag means no (non-zero) linked_flag_id: an unknown one was refused by rule 1.
  throw objectError('linkedFlagVariant can only be used when a linked_flag_id is specified');
}

function variantKeys(flag: LinkedFlag): string[] {
  const variants = flag.filters.multivariate?.variants;
  return Array.isArray(variants) ? variants.map((variant) => String(variant.key)) : [];
}
