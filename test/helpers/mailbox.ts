/** A real SMTP server on loopback (smtp-server) that keeps every mail it receives, parsed (mailparser). */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  smtpUrl: string;
  received: ParsedMail[];
  /** The next mail to `to` (waits up to `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ParsedMail[] = [];
  const taken = new Set<ParsedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const addressedTo = (mail: ParsedMail, to: string) => {
    const list = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
    return list.some((address) => address.value.some((entry) => entry.address?.toLowerCase() === to.toLowerCase()));
  };
  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, timeoutMs = 10_000) {
      const started = Date.now();
      for (;;) {
        const mail = received.find((candidate) => !taken.has(candidate) && addressedTo(candidate, to));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() - started > timeoutMs) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
