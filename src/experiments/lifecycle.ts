/**
 * The lifecycle actions (launch, pause, resume, end, ship_variant, archive, unarchive, reset):
 * each a rule on the experiment's state, the flag change it implies through the flags writer,
 * and the experiment's write, in one unit of work.
 */
import { orNotFound, requiredField, validationError } from '../kernel/errors.ts';
import type { FlagRecord } from '../flags/record.ts';
import { findFlag } from '../flags/store.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import type { ExperimentDeps } from './deps.ts';
import { flagIneligibility } from './fields.ts';
import { shippedFilters, writeExperimentFlag, type Actor } from './flag.ts';
import { experimentValuesOf, statusOf, type ExperimentRecord, type ExperimentValues } from './record.ts';
import type { ArchiveBody, EndBody, ShipVariantBody } from './schemas.ts';
import { saveExperiment } from './save.ts';
import { findExperiment } from './store.ts';
import type { Written } from './write.ts';

export type LifecycleAction = 'launch' | 'pause' | 'resume' | 'end' | 'ship_variant' | 'archive' | 'unarchive' | 'reset';

export type ActionBody = EndBody & ShipVariantBody & ArchiveBody;

interface Step {
  experiment: ExperimentRecord;
  flag: FlagRecord;
  next: ExperimentValues;
  /** Writes the flag (through the writer) and answers it. */
  writeFlag(body: Parameters<typeof writeExperimentFlag>[5]): Promise<FlagRecord>;
}

const refuse = (detail: string) => validationError(detail, null);

function requireRunning(experiment: ExperimentRecord): void {
  const status = statusOf(experiment);
  if (status === 'draft') throw refuse('Experiment has not been launched yet.');
  if (status === 'stopped') throw refuse('Experiment has already ended.');
}

function conclude(next: ExperimentValues, body: ActionBody): void {
  if (body.conclusion !== undefined) next.conclusion = body.conclusion;
  if (body.conclusion_comment !== undefined) next.conclusion_comment = body.conclusion_comment;
}

const ACTIONS: Record<LifecycleAction, (step: Step, body: ActionBody) => Promise<FlagRecord>> = {
  async launch({ experiment, flag, next, writeFlag }) {
    if (experiment.start_date !== null) throw refuse('Experiment has already been launched.');
    const why = flagIneligibility(flag.filters);
    if (why) throw refuse(why);
    next.start_date = new Date();
    return flag.active ? flag : writeFlag({ active: true });
  },
  async pause({ experiment, flag, writeFlag }) {
    requireRunning(experiment);
    if (!flag.active) throw refuse('Experiment is already paused.');
    return writeFlag({ active: false });
  },
  async resume({ experiment, flag, writeFlag }) {
    requireRunning(experiment);
    if (flag.active) throw refuse('Experiment is not paused.');
    return writeFlag({ active: true });
  },
  async end({ experiment, flag, next }, body) {
    requireRunning(experiment);
    next.end_date = new Date();
    conclude(next, body);
    return flag;
  },
  async ship_variant({ experiment, flag, next, writeFlag }, body) {
    if (experiment.start_date === null) throw refuse('Experiment has not been launched yet.');
    if (body.variant_key === undefined) throw requiredField('variant_key');
    const variants = flag.filters.multivariate?.variants ?? [];
    if (!variants.some((variant) => variant.key === body.variant_key)) {
      throw validationError(`Variant "${body.variant_key}" does not exist on the feature flag.`, 'variant_key');
    }
    if (experiment.end_date === null) next.end_date = new Date();
    conclude(next, body);
    return writeFlag({ filters: shippedFilters(flag.filters, body.variant_key, body.release_to_everyone === true) });
  },
  async archive({ experiment, flag, next, writeFlag }, body) {
    if (experiment.archived) throw refuse('Experiment is already archived.');
    if (experiment.end_date === null) throw refuse('Only ended experiments can be archived.');
    next.archived = true;
    return body.disable_feature_flag === true ? writeFlag({ active: false, archived: true }) : flag;
  },
  async unarchive({ experiment, flag, next }) {
    if (!experiment.archived) throw refuse('Experiment is not archived.');
    next.archived = false;
    return flag;
  },
  async reset({ experiment, flag, next }) {
    if (experiment.start_date === null) throw refuse('Experiment is already a draft.');
    next.start_date = null;
    next.end_date = null;
    next.conclusion = null;
    next.conclusion_comment = null;
    next.archived = false;
    return flag;
  },
};

export async function runLifecycleAction(
  deps: ExperimentDeps,
  request: { projectId: number; id: number; actor: Actor; action: LifecycleAction; body: ActionBody },
): Promise<Written> {
  const { projectId, id, actor, action, body } = request;
  return deps.units.run(
    async (unit: UnitOfWork) => {
      const experiment = orNotFound(await findExperiment(unit.client, projectId, id, { lock: true }));
      const flag = orNotFound(await findFlag(unit.client, projectId, experiment.feature_flag_id, true));
      const next = experimentValuesOf(experiment);
      const writeFlag = (flagBody: Parameters<typeof writeExperimentFlag>[5]) => writeExperimentFlag(deps, unit, projectId, flag.id, actor, flagBody);
      const written = await ACTIONS[action]({ experiment, flag, next, writeFlag }, body);
      const saved = await saveExperiment(deps, unit, experiment, next, actor.user.id);
      return { experiment: saved, flag: written };
    },
    { retry: true },
  );
}
