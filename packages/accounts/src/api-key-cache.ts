import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@cowrie/core';
import { apiKeyStopped, checkApiKeyRow, parseApiKey, type ApiKeyRow, type AuthenticatedKey, type FindApiKeyRow } from './api-keys';

// ─── The revocation epoch ─────────────────────────────────────────────────────
//
// Every process keeps the key rows it authenticated, tagged with the epoch it
// read before reading the row. The epoch is a random value in Redis, replaced
// whenever a key stops or changes (revoke, roll): a request reads it in the
// same round trip as its request budget, and a row cached under another epoch
// is read again from Postgres. So a revocation is in force for the next
// request on every replica, without a Postgres read per request.

/**
 * How long a process trusts a cached key row whatever the epoch says: the
 * bound on a revocation whose announcement was lost (Redis failed after the
 * commit).
 */
export const API_KEY_CACHE_MAX_AGE_MS = 60_000;

/** Redis key of the API-key epoch. */
export const apiKeyEpochKey = (keyPrefix: string) => `${keyPrefix}api-keys:epoch`;

/**
 * Tells every process that a key stopped or changed: call it after the change
 * committed (revokeApiKey, revokeOwnApiKey, rollOwnApiKey) and before
 * answering, so a request that follows the answer reads the key again.
 */
export async function announceApiKeyChange(redis: RedisClient, keyPrefix: string): Promise<void> {
  await redis.set(apiKeyEpochKey(keyPrefix), randomUUID());
}

/** The current epoch; a new (or flushed) Redis gets one, and every cached row is read again. */
export async function readApiKeyEpoch(redis: RedisClient, keyPrefix: string): Promise<string> {
  const key = apiKeyEpochKey(keyPrefix);
  const epoch = await redis.get(key);
  if (epoch) return epoch;
  await redis.set(key, randomUUID(), 'NX');
  // A Redis that keeps no epoch (evicted at once) gets a value no cached row holds: every request reads Postgres.
  return (await redis.get(key)) ?? randomUUID();
}

// ─── The authenticator ───────────────────────────────────────────────────────

export interface CachedApiKeyAuthenticatorOptions {
  /** The row lookup (Postgres). */
  find: FindApiKeyRow;
  /** The current epoch (readApiKeyEpoch). */
  readEpoch: () => Promise<string>;
  /** Rows kept per process; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** A cached row is read again after this long whatever the epoch says. Default API_KEY_CACHE_MAX_AGE_MS. */
  maxAgeMs?: number;
  now?: () => number;
}

interface CachedRow {
  row: ApiKeyRow;
  epoch: string;
  cachedAt: number;
}

export type ApiKeyAuthentication<T> = { key: AuthenticatedKey; alongside: T } | null;

/**
 * Authenticates bearer tokens against a per-process cache of key rows checked
 * against the epoch. `alongside(lookupId)` (the request budget) is sent with
 * the epoch read when the key is known here, so a known key costs one Redis
 * round trip and no Postgres read; an unknown key is read from Postgres first,
 * and `alongside` runs only once it authenticated, so a made-up key never
 * counts against anything. Null for a malformed, unknown, revoked or wrong key.
 * `epochIn`, when given, finds the epoch in what `alongside` answered (the
 * budget script reads it in the same Redis command: one command, not two),
 * null when Redis holds none yet (readEpoch then makes one).
 */
export function cachedApiKeyAuthenticator(opts: CachedApiKeyAuthenticatorOptions) {
  const maxEntries = opts.maxEntries ?? 10_000;
  const maxAgeMs = opts.maxAgeMs ?? API_KEY_CACHE_MAX_AGE_MS;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, CachedRow>();

  const remember = (lookupId: string, row: ApiKeyRow | null, epoch: string, cachedAt: number) => {
    cache.delete(lookupId);
    if (!row) return;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(lookupId, { row, epoch, cachedAt });
  };

  // The epoch as `alongside` read it, else (none in Redis yet) as readEpoch makes it.
  const epochAlongside = async <T>(lookupId: string, alongside: (lookupId: string) => Promise<T>, epochIn: (extra: T) => string | null) => {
    const extra = await alongside(lookupId);
    return [epochIn(extra) ?? (await opts.readEpoch()), extra] as const;
  };

  return async function authenticate<T>(
    token: string,
    alongside: (lookupId: string) => Promise<T>,
    epochIn?: (extra: T) => string | null,
  ): Promise<ApiKeyAuthentication<T>> {
    const parsed = parseApiKey(token);
    if (!parsed) return null;
    const { lookupId } = parsed;
    const cached = cache.get(lookupId);
    const startedAt = now();
    const checked = cached && startedAt - cached.cachedAt < maxAgeMs ? checkApiKeyRow(cached.row, parsed) : null;
    if (cached && checked) {
      const [epoch, extra] = epochIn ? await epochAlongside(lookupId, alongside, epochIn) : await Promise.all([opts.readEpoch(), alongside(lookupId)]);
      if (epoch === cached.epoch) {
        // The secret matched this row already: only the time may have passed its stop.
        return apiKeyStopped(cached.row) ? null : { key: checked, alongside: extra };
      }
      const row = await opts.find(lookupId);
      remember(lookupId, row, epoch, startedAt);
      const key = row && checkApiKeyRow(row, parsed);
      return key ? { key, alongside: extra } : null;
    }
    // The epoch is read before the row: a change announced after this read makes the next request read the row again.
    const epoch = await opts.readEpoch();
    const row = await opts.find(lookupId);
    remember(lookupId, row, epoch, startedAt);
    const key = row && checkApiKeyRow(row, parsed);
    return key ? { key, alongside: await alongside(lookupId) } : null;
  };
}
