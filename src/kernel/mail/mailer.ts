/**
 * The one way the service sends e-mail: SMTP through nodemailer, from SMTP_URL and EMAIL_FROM.
 * Invites and password resets use it; without SMTP_URL there is no mailer and nothing is sent.
 */
import nodemailer, { type TransportOptions } from 'nodemailer';

export interface MailSettings {
  /** SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
  smtpUrl: string;
  /** EMAIL_FROM: the sender, e.g. `Bellwether <bellwether@example.com>`. */
  from: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** Sends without waiting (after a commit, off the request); a failure is logged with `what`, never the message. */
  deliver(message: MailMessage, what: string): void;
  close(): void;
}

export type MailFailureLog = (error: unknown, what: string) => void;

/** Bounds every wait on the SMTP server: a mail that cannot go out in this time fails. */
const SMTP_TIMEOUT_MS = 10_000;

export function createMailer(settings: MailSettings, logFailure: MailFailureLog): Mailer {
  const transport = nodemailer.createTransport({
    url: settings.smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as TransportOptions);
  const send = async (message: MailMessage) => {
    await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
  };
  return {
    send,
    deliver(message, what) {
      send(message).catch((error: unknown) => logFailure(error, what));
    },
    close() {
      transport.close();
    },
  };
}
