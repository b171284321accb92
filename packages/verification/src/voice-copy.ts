import type { TRedis } from '@cowrie/core';

const voiceKey = (keyPrefix: string, reference: string) => `${keyPrefix}verify:voice:${reference}`;

/**
 * Voice codes keep a short-lived plaintext copy for the telephony layer (which
 * reads the code out, possibly more than once), only in Redis and only until
 * the code expires. It is deleted as soon as the verification leaves `pending`.
 */
export async function storeVoiceCode(redis: TRedis, keyPrefix: string, reference: string, code: string, ttlSeconds: number): Promise<void> {
  await redis.set(voiceKey(keyPrefix, reference), code, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
}

export async function readVoiceCode(redis: TRedis, keyPrefix: string, reference: string): Promise<string | null> {
  return redis.get(voiceKey(keyPrefix, reference));
}

export async function deleteVoiceCode(redis: TRedis, keyPrefix: string, reference: string): Promise<void> {
  await redis.del(voiceKey(keyPrefix, reference));
}

export async function voiceCodeTtl(redis: TRedis, keyPrefix: string, reference: string): Promise<number> {
  return redis.ttl(voiceKey(keyPrefix, reference));
}
