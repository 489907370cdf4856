/**
 * `experiment.significant`: a periodic round recomputes the primary metrics' results of running
 * experiments, a bounded number per round, and raises the event once per (experiment, primary
 * metric), in the unit of work that records the notice: the notice's primary key decides, across
 * processes, which transaction raises it (docs/experiments.md).
 */
import type { FlagRecord } from '../../flags/record.ts';
import { findFlag } from '../../flags/store.ts';
import { TimedRounds, type JobLog } from '../../kernel/jobs.ts';
import { raiseEvent } from '../../kernel/raised-events.ts';
import type { ExperimentDeps } from '../deps.ts';
import { presentExperiment } from '../present.ts';
import type { ExperimentRecord, StoredMetric } from '../record.ts';
import { metricResults } from '../results/query.ts';
import { StatisticsError } from '../stats/index.ts';
import { claimSignificanceNotice, runningExperimentsAfter } from './store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The significance rounds (tests run one with `runOnce`). */
    experimentSignificance: SignificanceJob;
  }
}

export const SIGNIFICANT_EVENT = 'experiment.significant';
export const DEFAULT_SIGNIFICANCE_INTERVAL_MS = 60_000;
/** Experiments whose results one round computes, at most. */
export const DEFAULT_SIGNIFICANCE_BATCH = 50;

export interface SignificanceReport {
  /** Experiments whose primary metrics were computed this round. */
  checked: number;
  /** (experiment, metric uuid) pairs this round raised the event for. */
  raised: Array<{ experimentId: number; metricUuid: string }>;
}

const silent: JobLog = { info: () => {}, error: () => {} };

/** The test variants whose result is significant (none while validation failures stop the analysis). */
async function significantVariants(deps: ExperimentDeps, experiment: ExperimentRecord, flag: FlagRecord, metric: StoredMetric): Promise<string[]> {
  try {
    const analysis = await metricResults(deps, experiment, flag, metric, true);
    return analysis.variant_results.filter((variant) => variant.significant === true).map((variant) => variant.key);
  } catch (error) {
    if (error instanceof StatisticsError) return [];
    throw new Error(`results of experiment ${experiment.id} (flag ${flag.key}) failed`, { cause: error });
  }
}

export class SignificanceJob extends TimedRounds {
  private readonly batch: number;
  /** The last experiment id looked at: rounds walk the running experiments in id order, then start over. */
  private cursor = 0;

  constructor(
    private readonly deps: ExperimentDeps,
    options: { log?: JobLog; intervalMs?: number; batch?: number } = {},
  ) {
    super(options.log ?? silent, options.intervalMs ?? DEFAULT_SIGNIFICANCE_INTERVAL_MS, 'experiment significance round failed');
    this.batch = Math.max(1, options.batch ?? DEFAULT_SIGNIFICANCE_BATCH);
  }

  /** One round: up to `batch` running experiments after the cursor. */
  async runOnce(): Promise<SignificanceReport> {
    const experiments = await runningExperimentsAfter(this.deps.pool, this.cursor, this.batch);
    this.cursor = experiments.length < this.batch ? 0 : experiments[experiments.length - 1].id;
    const report: SignificanceReport = { checked: 0, raised: [] };
    for (const experiment of experiments) {
      if (this.stopped) break;
      const flag = await findFlag(this.deps.pool, experiment.project_id, experiment.feature_flag_id);
      if (!flag) continue;
      report.checked += 1;
      for (const metric of experiment.metrics) {
        const variants = await significantVariants(this.deps, experiment, flag, metric);
        if (variants.length === 0) continue;
        const raised = await this.deps.units.run(
          async (unit) => {
            if (!(await claimSignificanceNotice(unit.client, experiment.id, metric.uuid))) return false;
            await raiseEvent(unit, {
              type: SIGNIFICANT_EVENT,
              projectId: experiment.project_id,
              actorId: null,
              object: () => {
                const { user_access_level: _viewerOnly, ...object } = presentExperiment(experiment, (id) => (id === flag.id ? flag : null), { userId: 0, organizationLevel: null });
                return { ...object, significant_metric: { uuid: metric.uuid, name: typeof metric.name === 'string' ? metric.name : null, significant_variants: variants } };
              },
            });
            return true;
          },
          { retry: true },
        );
        if (raised) {
          report.raised.push({ experimentId: experiment.id, metricUuid: metric.uuid });
          this.log.info({ experimentId: experiment.id, metricUuid: metric.uuid, variants }, 'experiment metric became significant');
        }
      }
    }
    return report;
  }
}
