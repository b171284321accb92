import type { TMode, TRedis } from '@cowrie/core';
import { codeText, DeliveryError, type DeliveryProvider, type TCodeMessage, type TDeliveryReceipt } from './types';
import { randomUUID } from 'node:crypto';

/** Destinations the sandbox refuses, so clients can rehearse a delivery failure (docs/design.md, Sandbox rails). */
export const SANDBOX_UNDELIVERABLE = new Set(['+2340000000000', 'bounce@example.com']);
/** How many messages the sandbox keeps per destination. */
export const SANDBOX_MESSAGES_KEPT = 20;

export interface TSandboxMessage {
  id: string;
  channel: string;
  destination: string;
  reference: string;
  code: string;
  text: string;
  sent_at: string;
  /** The mode of the verification's workspace. */
  mode: TMode;
}

const sandboxKey = (keyPrefix: string, destination: string) => `${keyPrefix}sandbox:verify:${destination}`;

/**
 * The default provider: offline and deterministic. Instead of sending, it keeps
 * the last messages of each destination in Redis (for tests and local
 * development) for `retentionSeconds`.
 */
export function createSandboxProvider(opts: { redis: TRedis; keyPrefix: string; retentionSeconds: number; mode?: TMode; now?: () => Date }): DeliveryProvider {
  return {
    id: 'sandbox',
    async send(message: TCodeMessage): Promise<TDeliveryReceipt> {
      if (SANDBOX_UNDELIVERABLE.has(message.destination)) {
        throw new DeliveryError(`the sandbox ${message.channel === 'email' ? 'mailbox bounced the message' : 'number is unreachable'}`);
      }
      const entry: TSandboxMessage = {
        id: randomUUID(),
        channel: message.channel,
        destination: message.destination,
        reference: message.reference,
        code: message.code,
        text: codeText(message),
        sent_at: (opts.now?.() ?? new Date()).toISOString(),
        mode: opts.mode ?? 'live',
      };
      const key = sandboxKey(opts.keyPrefix, message.destination);
      await opts.redis
        .multi()
        .lpush(key, JSON.stringify(entry))
        .ltrim(key, 0, SANDBOX_MESSAGES_KEPT - 1)
        .expire(key, opts.retentionSeconds)
        .exec();
      return { providerReference: entry.id };
    },
  };
}

/** The sandbox's messages to a normalised destination, newest first; of one mode only when `mode` is given. */
export async function readSandboxMessages(redis: TRedis, keyPrefix: string, destination: string, mode?: TMode): Promise<TSandboxMessage[]> {
  const raw = await redis.lrange(sandboxKey(keyPrefix, destination), 0, -1);
  // Messages kept before modes existed were live.
  const messages = raw.map((r) => JSON.parse(r) as TSandboxMessage).map((m) => ({ ...m, mode: m.mode ?? 'live' }));
  return mode ? messages.filter((m) => m.mode === mode) : messages;
}
