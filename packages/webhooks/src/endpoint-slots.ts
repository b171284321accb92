import type { RedisClient } from '@cowrie/core';
import { runScript } from '@cowrie/api-limits';
import { WEBHOOK_RETRY_DELAYS_MS } from './send-delivery';

// Takes (or extends) one of an endpoint's slots for a holder, as one step.
// KEYS[1]: the endpoint's slots, a sorted set of holders scored by when their
// lease ends (ms, by Redis's own clock, so senders on several machines agree).
// ARGV: the holder, the slots per endpoint, the lease (ms). Leases that ended
// are dropped first: a sender that died mid-send frees its slot by itself. A
// holder that already has a slot (a job run again after its sender died, or
// extending its lease) keeps it with a new lease; another takes one only
// while fewer than the limit are held. Returns 1 when the holder has a slot,
// 0 when the endpoint is full. The key lives as long as its last lease.
const TAKE_SLOT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]))
return 1`;

/** Beyond one attempt and the wait before the next: the outcome's write, a busy event loop. */
const LEASE_MARGIN_MS = 2000;

/**
 * How long one slot is held without news from its holder: one attempt at
 * `attemptTimeoutMs` (WEBHOOK_TIMEOUT_MS), the longest wait before the next
 * (whose start extends it again), and a margin. A sender killed mid-send
 * keeps its slot at most this long.
 */
export function webhookSlotLeaseMs(attemptTimeoutMs: number): number {
  return attemptTimeoutMs + Math.max(...WEBHOOK_RETRY_DELAYS_MS) + LEASE_MARGIN_MS;
}

/** The first wait of a dispatch put back because its endpoint was full; each time it is put back again the wait doubles, up to one attempt's timeout. */
const FIRST_DEFER_MS = 250;

/** One held slot; its lease ends by itself if the holder never comes back. */
export interface EndpointSlot {
  /** A new lease from now (before each attempt after the first). Taken again if it had lapsed and one is free. */
  renew(): Promise<void>;
  /** Frees the slot. */
  release(): Promise<void>;
}

export interface EndpointSlots {
  /** Each endpoint's limit of dispatches in flight at once (WEBHOOK_ENDPOINT_CONCURRENCY). */
  readonly perEndpoint: number;
  /** A slot's lease (webhookSlotLeaseMs unless given). */
  readonly leaseMs: number;
  /** One of the endpoint's slots for `holder` (a dispatch's job id), or null when all are held. */
  take(endpointId: number, holder: string): Promise<EndpointSlot | null>;
  /**
   * How long a dispatch put back because its endpoint was full waits before
   * it is tried again: 250 ms, doubling each time it was put back before, up
   * to one attempt's timeout (sooner rarely finds a slot free on an endpoint
   * that slow), between half and all of it at random so dispatches put back
   * together do not all come back together.
   */
  deferMs(timesDeferred: number, random?: () => number): number;
}

export interface EndpointSlotsOptions {
  /** REDIS_KEY_PREFIX. */
  keyPrefix: string;
  /** WEBHOOK_ENDPOINT_CONCURRENCY. */
  perEndpoint: number;
  /** WEBHOOK_TIMEOUT_MS: the lease and the longest wait of a dispatch put back follow from it. */
  attemptTimeoutMs: number;
  /** A slot's lease; webhookSlotLeaseMs(attemptTimeoutMs) unless given (tests shorten it). */
  leaseMs?: number;
}

/**
 * The rule that keeps one endpoint from holding every delivery slot of the
 * senders: at most `perEndpoint` dispatches to an endpoint are in flight at
 * once, across every webhook-sender. Each in-flight dispatch holds a slot, a
 * lease in Redis, from before its first attempt until its outcome is stored,
 * extended before each further attempt; one that finds the endpoint full is
 * sent later (`deferMs`) and counts no attempt. A sender that dies mid-send
 * never frees its slot: its lease runs out instead (webhookSlotLeaseMs).
 *
 * One key per endpoint (`<REDIS_KEY_PREFIX>webhook-in-flight:<endpoint id>`),
 * used alone by its script, so any Cluster slot does. A restored database can
 * give an endpoint id again; what an old one still holds lapses with its
 * leases.
 */
export function createEndpointSlots(redis: RedisClient, opts: EndpointSlotsOptions): EndpointSlots {
  const leaseMs = opts.leaseMs ?? webhookSlotLeaseMs(opts.attemptTimeoutMs);
  const take = (key: string, holder: string) => runScript(redis, TAKE_SLOT_SCRIPT, 1, [key, holder, opts.perEndpoint, leaseMs]);
  return {
    perEndpoint: opts.perEndpoint,
    leaseMs,
    async take(endpointId, holder) {
      const key = `${opts.keyPrefix}webhook-in-flight:${endpointId}`;
      if (Number(await take(key, holder)) !== 1) return null;
      return {
        renew: async () => {
          await take(key, holder);
        },
        release: async () => {
          await redis.zrem(key, holder);
        },
      };
    },
    deferMs(timesDeferred, random = Math.random) {
      const ceiling = Math.max(FIRST_DEFER_MS, opts.attemptTimeoutMs);
      const wait = Math.min(ceiling, FIRST_DEFER_MS * 2 ** Math.min(Math.max(0, timesDeferred), 16));
      return Math.round(wait * (0.5 + random() / 2));
    },
  };
}
