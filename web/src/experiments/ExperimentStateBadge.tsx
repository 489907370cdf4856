import { Badge } from '../ui/Badge.tsx';
import { experimentState, STATE_LABELS, STATE_TONES } from './status.ts';
import type { Experiment } from './types.ts';

export function ExperimentStateBadge({ experiment }: { experiment: Experiment }) {
  const state = experimentState(experiment);
  return <Badge tone={STATE_TONES[state]}>{STATE_LABELS[state]}</Badge>;
}
