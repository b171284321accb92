import type { VerificationChannel } from '../channels';

/** One code to deliver. `destination` is normalised (E.164 or lowercased email). */
export interface CodeMessage {
  channel: VerificationChannel;
  destination: string;
  code: string;
  /** The verification's public reference. */
  reference: string;
  /** Minutes the code stays valid, for the message text. */
  validForMinutes: number;
}

export interface DeliveryReceipt {
  /** The provider's id for the message, when it returns one. */
  providerReference?: string;
}

/**
 * Something that can put a code in front of a person. `send` resolves once the
 * provider accepted the message and throws a DeliveryError when it refused it
 * or could not be reached.
 */
export interface DeliveryProvider {
  /** Stored on the verification as `provider`. */
  readonly id: string;
  send(message: CodeMessage): Promise<DeliveryReceipt>;
  close?(): Promise<void> | void;
}

/**
 * An email of the dashboard's own (a password reset link, an invitation), not
 * a verification code: sent by the email provider of live mode.
 */
export interface EmailMessage {
  /** A lowercased email address. */
  to: string;
  subject: string;
  text: string;
  /** What it is, kept with the sandbox's copy (`reference`): `password_reset`, `invitation`. */
  kind: string;
}

/** Something that sends an EmailMessage; throws a DeliveryError as `send` does. */
export interface EmailSender {
  readonly id: string;
  sendEmail(message: EmailMessage): Promise<DeliveryReceipt>;
  close?(): Promise<void> | void;
}

/**
 * A delivery that did not happen. The message is shown to the API client after
 * `Could not deliver the code: `, so it never carries the code or a credential.
 */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
}

/**
 * A provider's own words, quoted in a DeliveryError: the code taken out
 * first, then shortened to `max` characters (shortened first, a code that
 * straddled the cut would leave its first digits behind, and the dispatcher's
 * own scrub, which looks for the whole code, would miss them).
 */
export function quoteProviderText(text: string, code: string, max = 120): string {
  return withoutCode(text, code).slice(0, max);
}

/** `text` with every occurrence of `code` replaced by `[code]`. */
export const withoutCode = (text: string, code: string): string => text.split(code).join('[code]');

/** The text every provider sends. */
export function codeText(message: CodeMessage): string {
  return `Your verification code is ${message.code}. It expires in ${message.validForMinutes} minute${message.validForMinutes === 1 ? '' : 's'}. Do not share it with anyone.`;
}
