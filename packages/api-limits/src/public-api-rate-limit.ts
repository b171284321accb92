import type { RedisClient } from '@cowrie/core';
import { clientAddressGroup } from './client-address';
import { hitFixedWindow, hitFixedWindowAndRead, type FixedWindowHit } from './fixed-window';

/** The API's request budget window: fixed 60 seconds per API key. */
export const PUBLIC_API_WINDOW_SECONDS = 60;

/**
 * Counts one request against an API key's budget. The counter is keyed by the
 * key's random lookup id, not its row id, which a new database would give to
 * another key while Redis still holds this one's count.
 */
export function hitPublicApiBudget(redis: RedisClient, opts: PublicApiBudgetOptions): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, budgetWindow(opts));
}

/**
 * hitPublicApiBudget, and the value of `readKey` read in the same Redis
 * command (the API-key epoch: one command per request, not two). On Redis
 * Cluster `readKey` lies in another slot, so use hitPublicApiBudget there.
 */
export function hitPublicApiBudgetAndRead(redis: RedisClient, opts: PublicApiBudgetOptions, readKey: string) {
  return hitFixedWindowAndRead(redis, budgetWindow(opts), readKey);
}

interface PublicApiBudgetOptions {
  keyPrefix: string;
  apiKeyLookupId: string;
  limit: number;
  now?: number;
}

const budgetWindow = (opts: PublicApiBudgetOptions) => ({
  key: `${opts.keyPrefix}rl:key:${opts.apiKeyLookupId}`,
  limit: opts.limit,
  windowSeconds: PUBLIC_API_WINDOW_SECONDS,
  now: opts.now,
});

/**
 * Counts one /v1 request refused for its key (none, malformed, unknown,
 * revoked) against its client address's budget of such requests
 * (PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT per window, an IPv6 address by its
 * /64): the 401 carries its X-RateLimit-* headers like every /v1 answer, and
 * one past it is a 429. An address a process saw past it is refused there
 * before its key is looked up, until the window ends (RefusedAddresses).
 */
export function hitUnauthenticatedApiBudget(
  redis: RedisClient,
  opts: { keyPrefix: string; clientAddress: string; limit: number; now?: number },
): Promise<FixedWindowHit> {
  return hitFixedWindow(redis, {
    key: `${opts.keyPrefix}rl:unauthenticated:${clientAddressGroup(opts.clientAddress)}`,
    limit: opts.limit,
    windowSeconds: PUBLIC_API_WINDOW_SECONDS,
    now: opts.now,
  });
}

/**
 * The client addresses this process saw past their budget of refused /v1
 * requests (hitUnauthenticatedApiBudget), each until its window ends: their
 * next requests are answered 429 before any key is looked up, whatever key
 * they carry (a per-address limit, as the budget's 429 says), so an address
 * guessing keys costs no database read per guess. In memory, per process, at
 * most `maxAddresses` (the oldest forgotten first): the shared counter in
 * Redis stays the budget; this only spares the lookups.
 */
export class RefusedAddresses {
  readonly #until = new Map<string, FixedWindowHit>();
  constructor(private readonly maxAddresses = 10_000) {}

  /** Whether any address is remembered (a check of every request costs nothing while none is). */
  get size(): number {
    return this.#until.size;
  }

  /** Remembers an address whose refusal was past its budget (`hit` refused), until its window ends. */
  note(clientAddress: string, hit: FixedWindowHit): void {
    if (hit.allowed) return;
    const group = clientAddressGroup(clientAddress);
    this.#until.delete(group);
    this.#until.set(group, hit);
    if (this.#until.size > this.maxAddresses) this.#until.delete(this.#until.keys().next().value!);
  }

  /** The refusal for an address still past its budget at `nowMs` (its retry time counted from now), or null. */
  refusalFor(clientAddress: string, nowMs = Date.now()): FixedWindowHit | null {
    const group = clientAddressGroup(clientAddress);
    const hit = this.#until.get(group);
    if (!hit) return null;
    const left = hit.resetAt * 1000 - nowMs;
    if (left <= 0) {
      this.#until.delete(group);
      return null;
    }
    return { ...hit, remaining: 0, allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }
}

/** Sets the X-RateLimit-* headers of a response through `set` (its setHeader), one call per header: no object per request. */
export function setRateLimitHeaders(hit: FixedWindowHit, set: (name: string, value: string) => unknown): void {
  set('X-RateLimit-Limit', String(hit.limit));
  set('X-RateLimit-Remaining', String(hit.remaining));
  set('X-RateLimit-Reset', String(hit.resetAt));
}
