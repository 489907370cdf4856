import { questionsError } from '../errors.ts';
import { isPlainObject, type JsonObject } from './python.ts';

const RULE_TYPES = ['min_length', 'max_length', 'email'];
const LENGTH_RULES = ['min_length', 'max_length'];

/** An open question's `validation` list; kept as sent when valid. */
export function checkAnswerRules(rules: unknown): void {
  if (!Array.isArray(rules)) throw questionsError('Question validation must be a list of validation rules');
  for (const rule of rules) {
    if (!isPlainObject(rule)) throw questionsError('Each validation rule must be an object');
    if (typeof rule.type !== 'string' || !RULE_TYPES.includes(rule.type)) {
      throw questionsError(`Validation rule type must be one of: ${RULE_TYPES.join(', ')}`);
    }
    const value = rule.value;
    if (LENGTH_RULES.includes(rule.type) && value !== undefined && value !== null && !isPositiveInteger(value)) {
      throw questionsError(`Validation rule value for ${rule.type} must be a positive integer`);
    }
  }
  const min = firstOfType(rules as JsonObject[], 'min_length');
  const max = firstOfType(rules as JsonObject[], 'max_length');
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    throw questionsError('Minimum length cannot be greater than maximum length');
  }
}

const isPositiveInteger = (value: unknown): boolean => typeof value === 'number' && Number.isInteger(value) && value > 0;

const firstOfType = (rules: JsonObject[], type: string): unknown => rules.find((rule) => rule.type === type)?.value;
