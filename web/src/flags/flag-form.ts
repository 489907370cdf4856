/** The flag editor's whole form (everything but the release conditions is plain) and the body it sends. Pure. */
import type { EvaluationRuntime, FeatureFlag } from '../api/types.ts';
import { filtersToForm, formToFilters, newUid, type FiltersForm } from './filters-form.ts';

export interface FlagForm {
  key: string;
  name: string;
  active: boolean;
  tags: string[];
  evaluationTags: string[];
  ensureExperienceContinuity: boolean;
  evaluationRuntime: EvaluationRuntime;
  filters: FiltersForm;
}

export const KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;

export function newFlagForm(): FlagForm {
  return {
    key: '',
    name: '',
    active: true,
    tags: [],
    evaluationTags: [],
    ensureExperienceContinuity: false,
    evaluationRuntime: 'all',
    filters: {
      groups: [{ uid: newUid('g'), properties: [], rollout_percentage: 100, extra: {} }],
      payloadsPresent: false,
      otherPayloads: {},
      extra: {},
    },
  };
}

export function flagToForm(flag: FeatureFlag): FlagForm {
  return {
    key: flag.key,
    name: flag.name ?? '',
    active: flag.active,
    tags: [...flag.tags],
    evaluationTags: [...flag.evaluation_tags],
    ensureExperienceContinuity: flag.ensure_experience_continuity ?? false,
    evaluationRuntime: flag.evaluation_runtime === 'both' ? 'all' : flag.evaluation_runtime,
    filters: filtersToForm(flag.filters),
  };
}

/** The create or update body: every field the editor shows. */
export function flagFormBody(form: FlagForm): Record<string, unknown> {
  return {
    key: form.key.trim(),
    name: form.name,
    active: form.active,
    tags: form.tags,
    evaluation_tags: form.evaluationTags.filter((tag) => form.tags.includes(tag)),
    ensure_experience_continuity: form.ensureExperienceContinuity,
    evaluation_runtime: form.evaluationRuntime,
    filters: formToFilters(form.filters),
  };
}

export function keyIssue(key: string): string | null {
  const trimmed = key.trim();
  if (trimmed === '') return 'A flag needs a key: the name your code asks for.';
  if (!KEY_PATTERN.test(trimmed)) return 'Only letters, numbers, hyphens (-) and underscores (_).';
  if (trimmed.length > 400) return 'At most 400 characters.';
  return null;
}
