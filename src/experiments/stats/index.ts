// Experiment statistics: pure functions over per-variant sufficient statistics. No I/O and no
// imports from the rest of the service, so the query layer, the console and the tests can call them.
export type {
  BaselineResult,
  BayesianVariantResult,
  ExperimentMetricResult,
  FrequentistVariantResult,
  MetricType,
  ValidationFailure,
  VariantResult,
  VariantStats,
} from './types.ts';
export { StatisticsError } from './errors.ts';
export { analyzeMetric, baselineKey } from './analyze.ts';
export { readStatsConfig, type StatsSettings } from './config.ts';
export { sampleRatioMismatch, SRM_THRESHOLD, type SampleRatioMismatch } from './sample-ratio.ts';
export {
  estimatedRunningDays,
  minimumDetectableEffect,
  sampleSizePerVariant,
  type RunningTimeInput,
  type SampleSizeInput,
} from './sample-size.ts';
