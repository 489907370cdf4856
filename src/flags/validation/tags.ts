import { validationError } from '../../kernel/errors.ts';
import { nullNotAllowed } from '../errors.ts';
import { pythonTypeName } from './values.ts';

const normalizeTag = (tag: string): string => tag.trim().toLowerCase();

/**
 * `tags` / `evaluation_tags`: a list of strings, each trimmed and lower-cased; empty ones are
 * dropped and duplicates removed, keeping the first occurrence's position. Absent (undefined) → [].
 */
export function normalizeTags(raw: unknown, attr: 'tags' | 'evaluation_tags'): string[] {
  if (raw === undefined) return [];
  if (raw === null) throw nullNotAllowed(attr);
  if (!Array.isArray(raw)) {
    throw validationError(`Expected a list of items but got type "${pythonTypeName(raw)}".`, attr, 'not_a_list');
  }
  const seen = new Set<string>();
  for (const item of raw) {
    if (typeof item !== 'string') throw validationError('Not a valid string.', attr, 'invalid_input');
    const tag = normalizeTag(item);
    if (tag !== '') seen.add(tag);
  }
  return [...seen];
}

/** `evaluation_tags` must be a subset of `tags`, compared after normalisation. */
export function checkEvaluationTagsSubset(evaluationTags: string[], tags: string[]): void {
  const known = new Set(tags.map(normalizeTag));
  const invalid = [...new Set(evaluationTags.map(normalizeTag))].filter((tag) => !known.has(tag)).sort();
  if (invalid.length > 0) {
    throw validationError(`Evaluation tags must be a subset of tags. Invalid evaluation tags: ${invalid.join(', ')}`, null);
  }
}
