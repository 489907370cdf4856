/** An approval policy's body, in DRF's words, and the writes of policies. */
import type { UnitsOfWork } from '../db/unit-of-work.ts';
import { notFound, orNotFound, requiredField, validationError } from '../kernel/errors.ts';
import { pythonStr } from '../kernel/http/python-types.ts';
import { FLAG_ACTIONS } from './detect.ts';
import { deletePolicy, findPolicy, insertPolicy, updatePolicy, type PolicyFields, type PolicyRow } from './store.ts';

export const DEFAULT_EXPIRY_SECONDS = 14 * 86_400;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** DRF's duration: `[DD] [HH:[MM:]]ss[.uuuuuu]`, or a number of seconds. */
function durationSeconds(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^(?:(\d+) )?(?:(?:(\d+):)?(\d+):)?(\d+)(?:\.\d{1,6})?$/.exec(value.trim()) : null;
  if (!match) throw validationError('Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].', 'expires_after');
  const [, days = '0', hours = '0', minutes = '0', seconds] = match;
  return Number(days) * 86_400 + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

function bool(value: unknown, attr: string): boolean {
  if (typeof value !== 'boolean') throw validationError('Must be a valid boolean.', attr);
  return value;
}

/** The policy as it would be stored: `stored` gives the fields a PATCH leaves out. */
export function policyFields(raw: Record<string, unknown>, stored: PolicyFields | null): PolicyFields {
  if (stored === null && raw.action_key === undefined) throw requiredField('action_key');
  if (stored === null && raw.approver_config === undefined) throw requiredField('approver_config');
  const fields: PolicyFields = stored
    ? { ...stored }
    : { action_key: '', conditions: {}, approver_config: { users: [], roles: [], quorum: 1 }, allow_self_approve: false, bypass_org_membership_levels: [], bypass_roles: [], expires_after_seconds: DEFAULT_EXPIRY_SECONDS, enabled: true };
  if (raw.action_key !== undefined) {
    if (typeof raw.action_key !== 'string' || !(FLAG_ACTIONS as readonly string[]).includes(raw.action_key)) {
      throw validationError(`"${pythonStr(raw.action_key)}" is not a valid choice.`, 'action_key', 'invalid_choice');
    }
    fields.action_key = raw.action_key;
  }
  if (raw.conditions !== undefined) {
    if (!isObject(raw.conditions)) throw validationError('Conditions must be an object.', 'conditions');
    fields.conditions = raw.conditions;
  }
  if (raw.approver_config !== undefined) {
    const config = raw.approver_config;
    if (!isObject(config)) throw validationError('Quorum must be at least 1', 'approver_config');
    const quorum = config.quorum;
    if (typeof quorum !== 'number' || !Number.isInteger(quorum) || quorum < 1) throw validationError('Quorum must be at least 1', 'approver_config');
    const users = config.users ?? [];
    if (!Array.isArray(users) || !users.every((u) => Number.isInteger(u))) throw validationError('Users must be a list of user ids.', 'approver_config');
    const roles = config.roles ?? [];
    if (!Array.isArray(roles) || roles.length > 0) throw validationError(`Roles do not exist: ${Array.isArray(roles) ? roles.join(', ') : ''}`, 'approver_config');
    fields.approver_config = { users: users as number[], roles: [], quorum };
  }
  if (raw.allow_self_approve !== undefined) fields.allow_self_approve = bool(raw.allow_self_approve, 'allow_self_approve');
  if (raw.enabled !== undefined) fields.enabled = bool(raw.enabled, 'enabled');
  if (raw.bypass_org_membership_levels !== undefined) {
    const levels = raw.bypass_org_membership_levels;
    if (!Array.isArray(levels) || !levels.every((l) => Number.isInteger(l))) throw validationError('All membership levels must be integers', 'bypass_org_membership_levels');
    fields.bypass_org_membership_levels = levels as number[];
  }
  if (raw.bypass_roles !== undefined) {
    const roles = raw.bypass_roles;
    if (!Array.isArray(roles) || roles.length > 0) throw validationError(`Roles do not exist: ${Array.isArray(roles) ? roles.join(', ') : ''}`, 'bypass_roles');
  }
  if (raw.expires_after !== undefined) fields.expires_after_seconds = durationSeconds(raw.expires_after);
  return fields;
}

const duplicate = () => validationError('A policy for this action already exists. You can edit the existing policy instead.');

export async function createPolicy(units: UnitsOfWork, projectId: number, userId: number, raw: Record<string, unknown>): Promise<PolicyRow> {
  const fields = policyFields(raw, null);
  return units.run(async ({ client }) => {
    const id = await insertPolicy(client, projectId, userId, fields);
    if (id === null) throw duplicate();
    return (await findPolicy(client, projectId, id))!;
  });
}

export async function changePolicy(units: UnitsOfWork, projectId: number, id: string, raw: Record<string, unknown>, partial: boolean): Promise<PolicyRow> {
  return units.run(async ({ client }) => {
    const stored = orNotFound(await findPolicy(client, projectId, id));
    const fields = policyFields(raw, partial ? stored : null);
    try {
      await updatePolicy(client, id, fields);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw duplicate();
      throw error;
    }
    return (await findPolicy(client, projectId, id))!;
  });
}

export async function removePolicy(units: UnitsOfWork, projectId: number, id: string): Promise<void> {
  if (!(await units.run(({ client }) => deletePolicy(client, projectId, id)))) throw notFound();
}
