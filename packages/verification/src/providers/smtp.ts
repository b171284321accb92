import nodemailer from 'nodemailer';
import { codeText, DeliveryError, type DeliveryProvider, type CodeMessage, type DeliveryReceipt, type EmailSender } from './types';

export interface SmtpProviderOptions {
  /** smtp(s)://user:pass@host:port */
  url: string;
  /** The From: header. */
  from: string;
  /** Connection, greeting and socket timeout of one delivery. */
  timeoutMs: number;
}

/** Email codes (and the dashboard's own emails, sendEmail) over SMTP with nodemailer. */
export function createSmtpProvider(opts: SmtpProviderOptions): DeliveryProvider & EmailSender {
  const transport = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
  const sendMail = async (to: string, subject: string, text: string): Promise<DeliveryReceipt> => {
    try {
      const info = await transport.sendMail({ from: opts.from, to, subject, text });
      if (info.rejected?.length) throw new DeliveryError('the mail server rejected the recipient');
      return { providerReference: info.messageId };
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      const e = err as { responseCode?: number; code?: string; message?: string };
      // The server's reply names the problem (550 mailbox unavailable, ...); the
      // message we sent is never part of it.
      const detail = e.responseCode ? `mail server answered ${e.responseCode}` : `mail server unreachable (${e.code ?? 'error'})`;
      throw new DeliveryError(detail, { cause: err });
    }
  };
  return {
    id: 'smtp',
    async send(message: CodeMessage): Promise<DeliveryReceipt> {
      if (message.channel !== 'email') throw new DeliveryError(`the smtp provider cannot deliver ${message.channel} codes`);
      return sendMail(message.destination, 'Your verification code', codeText(message));
    },
    sendEmail: (message) => sendMail(message.to, message.subject, message.text),
    close: () => transport.close(),
  };
}
