import { decryptSecret, encryptSecret, type Config, type Mode, type RedisClient } from '@cowrie/core';
import { codeText, DeliveryError, type DeliveryProvider, type CodeMessage, type DeliveryReceipt, type EmailSender } from './types';
import { randomUUID } from 'node:crypto';

/** Destinations the sandbox refuses, so clients can rehearse a delivery failure (docs/design.md, Sandbox rails). */
export const SANDBOX_UNDELIVERABLE = new Set(['+2340000000000', 'bounce@example.com']);
/** A number the sandbox treats as not on WhatsApp (its sms and voice still arrive). */
export const SANDBOX_NOT_ON_WHATSAPP = '+2340000000001';
/** How many messages the sandbox keeps per destination. */
export const SANDBOX_MESSAGES_KEPT = 20;

export interface SandboxMessage {
  id: string;
  channel: string;
  destination: string;
  reference: string;
  /** The code; empty in a dashboard email (EmailMessage), whose `reference` is its kind. */
  code: string;
  /** A dashboard email's subject (codes have none). */
  subject?: string;
  text: string;
  sent_at: string;
  /** The mode of the verification's workspace. */
  mode: Mode;
}

/**
 * Where the sandbox keeps what it "sent": Redis lists under the service's key
 * prefix, each message sealed with ENCRYPTION_KEY (it holds a one-time code,
 * which must not sit in Redis, its dumps or its replicas in plain text).
 */
export interface SandboxOutbox {
  redis: RedisClient;
  keyPrefix: string;
  encryptionKey: string;
}

export const sandboxOutbox = (redis: RedisClient, config: Pick<Config, 'REDIS_KEY_PREFIX' | 'ENCRYPTION_KEY'>): SandboxOutbox => ({
  redis,
  keyPrefix: config.REDIS_KEY_PREFIX,
  encryptionKey: config.ENCRYPTION_KEY,
});

const sandboxKey = (outbox: SandboxOutbox, destination: string) => `${outbox.keyPrefix}sandbox:verify:${destination}`;

/**
 * The default provider: offline and deterministic. Instead of sending, it keeps
 * the last messages of each destination in Redis (for tests and local
 * development) for `retentionSeconds`.
 */
export function createSandboxProvider(opts: {
  outbox: SandboxOutbox;
  retentionSeconds: number;
  mode?: Mode;
  now?: () => Date;
}): DeliveryProvider & EmailSender {
  const keep = async (entry: SandboxMessage): Promise<DeliveryReceipt> => {
    const key = sandboxKey(opts.outbox, entry.destination);
    await opts.outbox.redis
      .multi()
      .lpush(key, encryptSecret(JSON.stringify(entry), opts.outbox.encryptionKey))
      .ltrim(key, 0, SANDBOX_MESSAGES_KEPT - 1)
      .expire(key, opts.retentionSeconds)
      .exec();
    return { providerReference: entry.id };
  };
  return {
    id: 'sandbox',
    async send(message: CodeMessage): Promise<DeliveryReceipt> {
      if (SANDBOX_UNDELIVERABLE.has(message.destination)) {
        throw new DeliveryError(`the sandbox ${message.channel === 'email' ? 'mailbox bounced the message' : 'number is unreachable'}`);
      }
      if (message.channel === 'whatsapp' && message.destination === SANDBOX_NOT_ON_WHATSAPP) throw new DeliveryError('the number is not on WhatsApp');
      const entry: SandboxMessage = {
        id: randomUUID(),
        channel: message.channel,
        destination: message.destination,
        reference: message.reference,
        code: message.code,
        text: codeText(message),
        sent_at: (opts.now?.() ?? new Date()).toISOString(),
        mode: opts.mode ?? 'live',
      };
      return keep(entry);
    },
    async sendEmail(message) {
      if (SANDBOX_UNDELIVERABLE.has(message.to)) throw new DeliveryError('the sandbox mailbox bounced the message');
      return keep({
        id: randomUUID(),
        channel: 'email',
        destination: message.to,
        reference: message.kind,
        code: '',
        subject: message.subject,
        text: message.text,
        sent_at: (opts.now?.() ?? new Date()).toISOString(),
        mode: opts.mode ?? 'live',
      });
    },
  };
}

/** The sandbox's messages to a normalised destination, newest first; of one mode only when `mode` is given. */
export async function readSandboxMessages(outbox: SandboxOutbox, destination: string, mode?: Mode): Promise<SandboxMessage[]> {
  const raw = await outbox.redis.lrange(sandboxKey(outbox, destination), 0, -1);
  // Messages kept before they were sealed are plain JSON; those kept before
  // modes existed were live; one sealed under another ENCRYPTION_KEY (rotated)
  // cannot be read and is left out.
  const open = (entry: string): SandboxMessage | null => {
    try {
      return JSON.parse(entry.startsWith('{') ? entry : decryptSecret(entry, outbox.encryptionKey)) as SandboxMessage;
    } catch {
      return null;
    }
  };
  const messages = raw
    .map(open)
    .filter((m): m is SandboxMessage => m !== null)
    .map((m) => ({ ...m, mode: m.mode ?? 'live' }));
  return mode ? messages.filter((m) => m.mode === mode) : messages;
}
