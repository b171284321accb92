import { decryptSecret, encryptSecret, type Config, type RedisClient } from '@cowrie/core';

type VoiceCopyConfig = Pick<Config, 'REDIS_KEY_PREFIX' | 'ENCRYPTION_KEY'>;

const voiceKey = (config: Pick<Config, 'REDIS_KEY_PREFIX'>, reference: string) => `${config.REDIS_KEY_PREFIX}verify:voice:${reference}`;

/**
 * Voice codes keep a short-lived copy for the telephony layer (which reads the
 * code out, possibly more than once), only in Redis, sealed with
 * ENCRYPTION_KEY, and only until the code expires. It is deleted as soon as
 * the verification leaves `pending`.
 */
export async function storeVoiceCode(redis: RedisClient, config: VoiceCopyConfig, reference: string, code: string, ttlSeconds: number): Promise<void> {
  await redis.set(voiceKey(config, reference), encryptSecret(code, config.ENCRYPTION_KEY), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
}

export async function readVoiceCode(redis: RedisClient, config: VoiceCopyConfig, reference: string): Promise<string | null> {
  const sealed = await redis.get(voiceKey(config, reference));
  return sealed === null ? null : decryptSecret(sealed, config.ENCRYPTION_KEY);
}

export async function deleteVoiceCode(redis: RedisClient, config: Pick<Config, 'REDIS_KEY_PREFIX'>, reference: string): Promise<void> {
  await redis.del(voiceKey(config, reference));
}

export async function voiceCodeTtl(redis: RedisClient, config: Pick<Config, 'REDIS_KEY_PREFIX'>, reference: string): Promise<number> {
  return redis.ttl(voiceKey(config, reference));
}
