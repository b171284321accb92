import type { RedisClient } from '@cowrie/core';

/** A rail's breaker: `closed` (used), `open` (passed over until `openUntil`), `half_open` (its cool-down is over: one probe payout may try it). */
export type RailHealthState = 'closed' | 'open' | 'half_open';

export interface RailHealthStatus {
  rail: string;
  state: RailHealthState;
  /** Definite failures of its own in a row. */
  failures: number;
  openUntil: string | null;
}

/**
 * The circuit breaker of the payout rails, shared by every process through
 * Redis. A rail that fails on its own, definitely (refused before accepting
 * because it is down, refused credentials, its own balance too low), is
 * passed over for a cool-down that doubles with each failure in a row (up
 * to a maximum); once it is over, one payout is let through as a probe (the
 * others keep passing it over), and its success closes the breaker. A
 * destination's failure and an ambiguous outcome say nothing about the rail
 * and are never recorded here.
 */
export interface RailHealth {
  /** Whether a payout that never reached `rail` may be sent there now (true for the one probe of a half-open rail). */
  allows(rail: string): Promise<boolean>;
  failed(rail: string): Promise<void>;
  succeeded(rail: string): Promise<void>;
  states(rails: readonly string[]): Promise<RailHealthStatus[]>;
}

export interface RailHealthOptions {
  redis: RedisClient;
  keyPrefix: string;
  cooldownMs: number;
  maxCooldownMs: number;
  now?: () => number;
}

export function createRailHealth({ redis, keyPrefix, cooldownMs, maxCooldownMs, now = Date.now }: RailHealthOptions): RailHealth {
  const key = (rail: string) => `${keyPrefix}rails:health:${rail}`;
  const probeKey = (rail: string) => `${keyPrefix}rails:health:${rail}:probe`;
  // A hint, never the state: whether this process last saw the rail with failures on record, so a success writes only then.
  const sawFailures = new Map<string, boolean>();
  // The state outlives any cool-down a little, then goes by itself.
  const keepMs = maxCooldownMs * 4;

  async function read(rail: string) {
    const [failures, openUntil] = await redis.hmget(key(rail), 'failures', 'openUntil');
    const status = { failures: Number(failures ?? 0), openUntil: Number(openUntil ?? 0) };
    sawFailures.set(rail, status.failures > 0);
    return status;
  }

  return {
    async allows(rail) {
      const { failures, openUntil } = await read(rail);
      if (failures === 0) return true;
      if (now() < openUntil) return false;
      // Half-open: the first payout to ask is the probe; the slot frees itself after a cool-down if the probe never tells.
      return (await redis.set(probeKey(rail), '1', 'PX', cooldownMs, 'NX')) === 'OK';
    },
    async failed(rail) {
      const failures = await redis.hincrby(key(rail), 'failures', 1);
      const openUntil = now() + Math.min(maxCooldownMs, cooldownMs * 2 ** Math.min(failures - 1, 20));
      await redis.multi().hset(key(rail), 'openUntil', String(openUntil)).pexpire(key(rail), keepMs).del(probeKey(rail)).exec();
      sawFailures.set(rail, true);
    },
    async succeeded(rail) {
      if (!sawFailures.get(rail)) return;
      await redis.del(key(rail), probeKey(rail));
      sawFailures.set(rail, false);
    },
    async states(rails) {
      return Promise.all(
        rails.map(async (rail) => {
          const { failures, openUntil } = await read(rail);
          const state: RailHealthState = failures === 0 ? 'closed' : now() < openUntil ? 'open' : 'half_open';
          return { rail, state, failures, openUntil: failures ? new Date(openUntil).toISOString() : null };
        }),
      );
    },
  };
}
