import type { RedisClient } from '@cowrie/core';
import type { Bank } from './types';

export interface BankCacheOptions {
  redis: RedisClient;
  keyPrefix: string;
  ttlSeconds: number;
}

/**
 * A rail's bank list through Redis: one rail call per TTL for every replica.
 * A Redis failure falls through to the rail rather than failing the request.
 */
export async function cachedBanks(railId: string, load: () => Promise<Bank[]>, { redis, keyPrefix, ttlSeconds }: BankCacheOptions): Promise<Bank[]> {
  const key = `${keyPrefix}rails:banks:${railId}`;
  const hit = await redis.get(key).catch(() => null);
  if (hit) return JSON.parse(hit) as Bank[];
  const banks = await load();
  await redis.set(key, JSON.stringify(banks), 'EX', ttlSeconds).catch(() => undefined);
  return banks;
}
