import type { AccountsDeps } from '../deps.ts';
import type { Principal } from '../auth/principal.ts';
import { notFound, orNotFound, validationError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { checkInvite, checkManageInvites, levelFromNumber } from '../members/rules.ts';
import { findMemberByUserId, lockOrganization } from '../members/store.ts';
import { findOrganization } from '../organizations/store.ts';
import { inviteMail } from '../password-reset/mail.ts';
import { membershipLevelNumber } from '../organizations/reach.ts';
import { cleanName, isUuid, resolveOrganization } from '../organizations/service.ts';
import { cleanEmail } from '../users/email.ts';
import type { CreateInviteBody, Invite } from './schemas.ts';
import { FIRST_NAME_MAX_LENGTH } from './schemas.ts';
import {
  deleteInvite,
  deleteInvitesFor,
  hasLiveInviteFor,
  insertInvite,
  isMemberByEmail,
  listInvites,
  type InviteRow,
} from './store.ts';

/** The sign-up page of an invite. */
export function inviteUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/signup/${id}`;
}

function toInvite(row: InviteRow, baseUrl: string): Invite {
  return {
    id: row.id,
    target_email: row.target_email,
    first_name: row.first_name,
    emailing_attempt_made: row.emailing_attempt_made,
    level: membershipLevelNumber(row.level),
    is_expired: row.is_expired,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    message: null,
    invite_url: inviteUrl(baseUrl, row.id),
  };
}

/** Invites carry the link that lets someone join, so only admins and owners see or manage them. */
async function adminOrganization(deps: AccountsDeps, principal: Principal, rawOrganization: string): Promise<string> {
  const { id, level } = await resolveOrganization(deps, principal, rawOrganization);
  checkManageInvites(level);
  return id;
}

export async function listOrganizationInvites(deps: AccountsDeps, principal: Principal, rawOrganization: string, page: Page, baseUrl: string) {
  const id = await adminOrganization(deps, principal, rawOrganization);
  const { count, rows } = await listInvites(deps.pool, id, page);
  return { count, results: rows.map((row) => toInvite(row, baseUrl)) };
}

/**
 * An invite by e-mail address: admins and owners, at most at their own level. An address that
 * already belongs to a member, or has an invite still valid, is a 400 on `target_email`; an
 * expired invite for it is replaced.
 */
export async function createInvite(
  deps: AccountsDeps,
  principal: Principal,
  rawOrganization: string,
  body: CreateInviteBody,
  baseUrl: string,
): Promise<Invite> {
  const { id: organizationId } = await resolveOrganization(deps, principal, rawOrganization);
  const email = cleanEmail(body.target_email, 'target_email');
  const firstName = body.first_name === undefined || body.first_name.trim() === '' ? '' : cleanName(body.first_name, 'first_name', FIRST_NAME_MAX_LENGTH);
  const level = levelFromNumber(body.level ?? 1);
  const mailer = body.send_email === false ? null : deps.mailer;
  const row = await deps.units.run(async (unit) => {
    const { client } = unit;
    if (!(await lockOrganization(client, organizationId))) throw notFound();
    const actor = orNotFound(await findMemberByUserId(client, organizationId, principal.user.id));
    checkInvite(actor.level, level);
    if (await isMemberByEmail(client, organizationId, email)) {
      throw validationError('A user with this email address already belongs to the organization.', 'target_email', 'user_already_member');
    }
    if (await hasLiveInviteFor(client, organizationId, email)) {
      throw validationError('An invite for this email address already exists. Cancel it to make a new one.', 'target_email', 'invite_exists');
    }
    await deleteInvitesFor(client, organizationId, email);
    const invite = await insertInvite(client, { organizationId, targetEmail: email, firstName, level, createdBy: principal.user.id, emailed: mailer !== null });
    if (mailer) {
      const organization = (await findOrganization(client, organizationId))?.name ?? 'an organization';
      const inviter = [principal.user.first_name, principal.user.last_name].filter(Boolean).join(' ') || principal.user.email;
      const message = inviteMail(email, { link: inviteUrl(baseUrl, invite.id), organization, inviter, site: baseUrl });
      unit.afterCommit(() => mailer.deliver(message, 'invite'));
    }
    return invite;
  });
  return toInvite(row, baseUrl);
}

export async function cancelInvite(deps: AccountsDeps, principal: Principal, rawOrganization: string, inviteId: string): Promise<void> {
  const organizationId = await adminOrganization(deps, principal, rawOrganization);
  if (!isUuid(inviteId)) throw notFound();
  const deleted = await deps.units.run(({ client }) => deleteInvite(client, organizationId, inviteId.toLowerCase()));
  if (!deleted) throw notFound();
}
