import type { EvaluationFlag } from '../evaluation/index.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { DetailFragments } from './detail-fragments.ts';

/** A live (not deleted) flag: its record, its engine form (filters as the API shows them), its `/flags?v=2` entries. */
export interface LiveFlag {
  record: FlagRecord;
  flag: EvaluationFlag;
  detail: DetailFragments;
}
