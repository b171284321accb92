import { AppError, type TConfig, type TRedis } from '@cowrie/core';
import type { SqlQueryable } from '@cowrie/db';
import { currencyStatus } from '@cowrie/catalog';
import { cachedBanks } from './bank-cache';
import { createPaystackRail } from './paystack-rail';
import { createSandboxRail } from './sandbox-rail';
import type { PayoutRail, TBank } from './types';

export type RailsConfig = Pick<
  TConfig,
  'PAYOUT_RAIL' | 'PAYOUT_SANDBOX_DELAY_MS' | 'PAYOUT_PAYSTACK_SECRET_KEY' | 'PAYOUT_PAYSTACK_BASE_URL' | 'PAYOUT_PAYSTACK_TIMEOUT_MS' | 'PAYOUT_BANKS_CACHE_TTL_SECONDS' | 'REDIS_KEY_PREFIX'
>;

export interface Rails {
  /** The rail a payout in `currency` goes through: `live` currencies use PAYOUT_RAIL, `sandbox` ones the sandbox. */
  forCurrency(currency: string): PayoutRail;
  /** The rail a ledger row names as its `provider`. */
  byId(id: string): PayoutRail;
  /** A rail's bank list, cached in Redis for PAYOUT_BANKS_CACHE_TTL_SECONDS (and in the process for at most 10 s of it). */
  banks(rail: PayoutRail): Promise<TBank[]>;
}

const LOCAL_BANKS_TTL_MS = 10_000;

/** What the rails keep state in: Redis for the bank list cache, Postgres for the sandbox's bank. */
export interface RailsStores {
  redis: TRedis;
  sql: SqlQueryable;
}

/** The payout rails of this deployment, built once per process from config. */
export function createRails(config: RailsConfig, { redis, sql }: RailsStores): Rails {
  const cache = { redis, keyPrefix: config.REDIS_KEY_PREFIX, ttlSeconds: config.PAYOUT_BANKS_CACHE_TTL_SECONDS };
  const sandbox = createSandboxRail({ sql, delayMs: config.PAYOUT_SANDBOX_DELAY_MS });
  const paystack: PayoutRail = createPaystackRail({
    secretKey: config.PAYOUT_PAYSTACK_SECRET_KEY,
    baseUrl: config.PAYOUT_PAYSTACK_BASE_URL,
    timeoutMs: config.PAYOUT_PAYSTACK_TIMEOUT_MS,
    banks: () => banks(paystack),
  });
  const all: Record<string, PayoutRail> = { sandbox, paystack };
  // In front of Redis, each process keeps the list briefly: a transfer names
  // its bank from it on every request.
  const localTtlMs = Math.min(LOCAL_BANKS_TTL_MS, config.PAYOUT_BANKS_CACHE_TTL_SECONDS * 1000);
  const local = new Map<string, { banks: Promise<TBank[]>; until: number }>();
  const banks = (rail: PayoutRail) => {
    const hit = local.get(rail.id);
    if (hit && hit.until > Date.now()) return hit.banks;
    const loading = cachedBanks(rail.id, () => rail.listBanks(), cache);
    local.set(rail.id, { banks: loading, until: Date.now() + localTtlMs });
    loading.catch(() => local.delete(rail.id));
    return loading;
  };
  return {
    forCurrency(currency) {
      const status = currencyStatus(currency);
      if (status === 'sandbox') return sandbox;
      if (status === 'live') return all[config.PAYOUT_RAIL]!;
      throw new AppError('coming_soon', `Payouts in ${currency.toUpperCase()} are coming soon`);
    },
    byId(id) {
      const rail = all[id];
      if (!rail) throw new Error(`unknown payout rail ${id}`);
      return rail;
    },
    banks,
  };
}

/**
 * The same rails with each rail passed once through `wrap`: how a service
 * times rail calls (metrics) without the rails knowing.
 */
export function mapRails(rails: Rails, wrap: (rail: PayoutRail) => PayoutRail): Rails {
  const wrapped = new Map<PayoutRail, PayoutRail>();
  const once = (rail: PayoutRail) => {
    let w = wrapped.get(rail);
    if (!w) wrapped.set(rail, (w = wrap(rail)));
    return w;
  };
  return {
    forCurrency: (currency) => once(rails.forCurrency(currency)),
    byId: (id) => once(rails.byId(id)),
    banks: (rail) => rails.banks(rail),
  };
}
