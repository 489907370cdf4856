import type { MailMessage } from '../../kernel/mail/mailer.ts';

export function resetMail(to: string, link: string, site: string): MailMessage {
  return {
    to,
    subject: 'Reset your Bellwether password',
    text:
      `Someone, hopefully you, asked to reset the password of the Bellwether account ${to} at ${site}.\n\n` +
      `Set a new password with this link within an hour (it works once):\n\n${link}\n\n` +
      `Using it signs you out everywhere else. If you did not ask, ignore this e-mail: your password stays as it is.\n`,
  };
}

export function inviteMail(to: string, invite: { link: string; organization: string; inviter: string; site: string }): MailMessage {
  return {
    to,
    subject: `${invite.inviter} invited you to ${invite.organization} on Bellwether`,
    text:
      `${invite.inviter} invited you to join ${invite.organization} on Bellwether (${invite.site}).\n\n` +
      `Open this link within 3 days to join:\n\n${invite.link}\n`,
  };
}
