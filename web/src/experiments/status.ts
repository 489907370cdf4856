/** What an experiment's state means to a person, and what each action does to its flag. */
import type { BadgeTone } from '../ui/Badge.tsx';
import type { Experiment } from './types.ts';

export type ExperimentState = 'draft' | 'running' | 'paused' | 'complete';

/** Running with its flag switched off is paused (PostHog keeps the dates and turns the flag off). */
export function experimentState(experiment: Experiment): ExperimentState {
  if (experiment.status === 'draft') return 'draft';
  if (experiment.status === 'stopped') return 'complete';
  return experiment.feature_flag && !experiment.feature_flag.active ? 'paused' : 'running';
}

export const STATE_LABELS: Record<ExperimentState, string> = { draft: 'Draft', running: 'Running', paused: 'Paused', complete: 'Complete' };
export const STATE_TONES: Record<ExperimentState, BadgeTone> = { draft: 'neutral', running: 'success', paused: 'warning', complete: 'info' };

/** Variants as the flag has them (the experiment's parameters when the flag is not there). */
export function variantsOf(experiment: Experiment): Array<{ key: string; rollout_percentage: number }> {
  const fromFlag = experiment.feature_flag?.filters?.multivariate?.variants;
  if (fromFlag && fromFlag.length > 0) return fromFlag.map((variant) => ({ key: variant.key, rollout_percentage: variant.rollout_percentage ?? 0 }));
  return experiment.parameters.feature_flag_variants ?? [];
}

export type LifecycleAction = 'launch' | 'pause' | 'resume' | 'end' | 'ship_variant' | 'archive' | 'unarchive' | 'reset';
