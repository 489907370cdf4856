/** Create, update and delete of early access features, with what each does to the linked flag, in one unit of work. */
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { uuidv7 } from '../events/ingestion/uuid.ts';
import type { FlagRecord } from '../flags/record.ts';
import { findFlag } from '../flags/store.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { notFound, requiredField, validationError } from '../kernel/errors.ts';
import { createFeatureFlag, markFlag } from './flag.ts';
import { enrols, isStage, type FeatureRecord, type Stage } from './record.ts';
import type { FeatureWriteBody } from './schemas.ts';
import { deleteFeature, featureOfFlag, findFeature, insertFeature, saveFeature, type FeatureValues } from './store.ts';

export interface Written {
  feature: FeatureRecord;
  flag: FlagRecord | null;
}

const isUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ftp:' || url.protocol === 'ftps:';
  } catch {
    return false;
  }
};

function stageOf(value: unknown): Stage {
  if (!isStage(value)) throw validationError(`"${String(value)}" is not a valid choice.`, 'stage', 'invalid_choice');
  return value;
}

function payloadOf(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === false || value === '' || value === 0) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw validationError('Value must be valid JSON.', 'payload');
  return value as Record<string, unknown>;
}

/** The stored values with the body's fields applied (PATCH: only those sent). */
function valuesOf(body: FeatureWriteBody, current: FeatureValues | null): FeatureValues {
  const name = body.name ?? current?.name;
  if (name === undefined) throw requiredField('name');
  if (name.trim() === '') throw validationError('This field may not be blank.', 'name', 'blank');
  if (name.length > 200) throw validationError('Ensure this field has no more than 200 characters.', 'name', 'max_length');
  const stageRaw = body.stage ?? current?.stage;
  if (stageRaw === undefined) throw requiredField('stage');
  const url = body.documentation_url ?? current?.documentation_url ?? '';
  if (url !== '' && !isUrl(url)) throw validationError('Enter a valid URL.', 'documentation_url');
  if (url.length > 800) throw validationError('Ensure this field has no more than 800 characters.', 'documentation_url', 'max_length');
  return {
    name,
    description: body.description ?? current?.description ?? '',
    stage: stageOf(stageRaw),
    documentation_url: url,
    payload: body.payload === undefined && current ? current.payload : payloadOf(body.payload),
  };
}

async function linkableFlag(unit: UnitOfWork, projectId: number, flagId: number): Promise<FlagRecord> {
  const flag = await findFlag(unit.client, projectId, flagId, true);
  if (!flag || flag.deleted) throw validationError('Feature Flag with this ID does not exist', null);
  if ((await featureOfFlag(unit.client, flagId)) !== null) throw validationError(`Linked feature flag ${flag.key} already has a feature attached to it.`, null);
  if (flag.filters.aggregation_group_type_index != null) throw validationError('Group-based feature flags are not supported for Early Access Features.', null);
  if ((flag.filters.multivariate?.variants ?? []).length > 0) throw validationError('Multivariate feature flags are not supported for Early Access Features.', null);
  return flag;
}

export async function createFeature(deps: FlagWriteDeps, projectId: number, actor: UserSummary, body: FeatureWriteBody): Promise<Written> {
  const values = valuesOf(body, null);
  return deps.units.run(async (unit) => {
    let flag: FlagRecord | null;
    if (body.feature_flag_id !== undefined && body.feature_flag_id !== null) {
      flag = await linkableFlag(unit, projectId, body.feature_flag_id);
      if (enrols(values.stage)) flag = await markFlag(deps, unit, projectId, flag.id, true, actor);
    } else {
      flag = await createFeatureFlag(deps, unit, projectId, actor, values.name, enrols(values.stage));
    }
    const id = uuidv7();
    await insertFeature(unit.client, id, projectId, flag?.id ?? null, values, actor.id);
    const feature = await findFeature(unit.client, projectId, id);
    if (!feature) throw notFound();
    return { feature, flag };
  });
}

/** `rolloutToAll`: moving to general availability serves everyone, opt-outs included, and drops the marker. */
export async function updateFeature(deps: FlagWriteDeps, projectId: number, id: string, actor: UserSummary, body: FeatureWriteBody, rolloutToAll: boolean): Promise<Written> {
  return deps.units.run(async (unit) => {
    const before = await findFeature(unit.client, projectId, id, true);
    if (!before) throw notFound();
    const values = valuesOf(body, before);
    await saveFeature(unit.client, id, values);
    let flag: FlagRecord | null = before.feature_flag_id === null ? null : await findFlag(unit.client, projectId, before.feature_flag_id);
    if (flag && body.stage !== undefined && body.stage !== before.stage) {
      const change = values.stage === 'general-availability' && rolloutToAll ? 'everyone' : !enrols(values.stage) ? null : enrols(before.stage) ? undefined : true;
      if (change !== undefined) flag = await markFlag(deps, unit, projectId, flag.id, change, actor);
    }
    const feature = await findFeature(unit.client, projectId, id);
    if (!feature) throw notFound();
    return { feature, flag };
  });
}

/** Hard delete; the flag stays, without its marker. */
export async function removeFeature(deps: FlagWriteDeps, projectId: number, id: string, actor: UserSummary): Promise<void> {
  await deps.units.run(async (unit) => {
    const feature = await findFeature(unit.client, projectId, id, true);
    if (!feature) throw notFound();
    if (feature.feature_flag_id !== null) await markFlag(deps, unit, projectId, feature.feature_flag_id, null, actor);
    await deleteFeature(unit.client, id);
  });
}
