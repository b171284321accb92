import { AppError, paystackPayoutSettings, type Config, type PaystackConfig, type Decimal, type Mode, type RedisClient } from '@cowrie/core';
import type { SqlQueryable } from '@cowrie/db';
import { currencyStatus } from '@cowrie/catalog';
import { cachedBanks } from './bank-cache';
import { createFlutterwaveRail } from './flutterwave-rail';
import { createPaystackPayoutRail } from './paystack-payout-rail';
import { createRailHealth, type RailHealth } from './health';
import { parseRoutingRules, routePayout, tableRoutingRules, type PayoutRoute, type RoutingRule } from './routing';
import { createSandboxRail } from './sandbox-rail';
import type { PayoutRail, Bank } from './types';

export type RailsConfig = PaystackConfig &
  Pick<
    Config,
    | 'PAYOUT_RAIL'
    | 'PAYOUT_RAILS'
    | 'PAYOUT_ROUTING_RULES'
    | 'PAYOUT_FLUTTERWAVE_SECRET_KEY'
    | 'PAYOUT_FLUTTERWAVE_BASE_URL'
    | 'PAYOUT_FLUTTERWAVE_TIMEOUT_MS'
    | 'PAYOUT_RAIL_COOLDOWN_MS'
    | 'PAYOUT_RAIL_MAX_COOLDOWN_MS'
    | 'PAYOUT_SANDBOX_DELAY_MS'
    | 'PAYOUT_BANKS_CACHE_TTL_SECONDS'
    | 'REDIS_KEY_PREFIX'
  >;

export interface Rails {
  /** The first rail of `currency` (banks, account names, beneficiaries): `live` currencies use PAYOUT_RAILS' first, `sandbox` ones the sandbox. */
  forCurrency(currency: string): PayoutRail;
  /**
   * The rails one payout may go through, in order (the first is tried first;
   * a payout moves on only when a rail certainly did not take it), and the
   * routing rule that chose them (null: the configured order).
   */
  route(payout: { currency: string; bankCode: string | null; amount: Decimal; workspaceId: number }): Promise<PayoutRoute>;
  /** The configured rules (PAYOUT_ROUTING_RULES), tried after the operator's table (`cowrie rail rule …`). */
  readonly rules: readonly RoutingRule[];
  /** The rails a live payout may go through, in the configured order. */
  readonly order: readonly string[];
  /** The breaker of the rails (null with a single rail: nothing to pass a payout on to). */
  readonly health: RailHealth | null;
  /** The rail a ledger row names as its `provider`. */
  byId(id: string): PayoutRail;
  /** A rail's bank list, cached in Redis for PAYOUT_BANKS_CACHE_TTL_SECONDS (and in the process for at most 10 s of it). */
  banks(rail: PayoutRail): Promise<Bank[]>;
}

const LOCAL_BANKS_TTL_MS = 10_000;
/** How long a process routes by the operator's table of rules as it last read it. */
const TABLE_RULES_TTL_MS = 10_000;

/** What the rails keep state in: Redis for the bank list cache, Postgres for the sandbox's bank. */
export interface RailsStores {
  redis: RedisClient;
  sql: SqlQueryable;
}

/**
 * The payout rails of this deployment in `mode`, built once per process from
 * config. Test mode holds the sandbox rail only: every payout of a test
 * workspace goes to the sandbox, and a row naming another rail is refused.
 */
export function createRails(config: RailsConfig, { redis, sql }: RailsStores, mode: Mode = 'live'): Rails {
  const cache = { redis, keyPrefix: config.REDIS_KEY_PREFIX, ttlSeconds: config.PAYOUT_BANKS_CACHE_TTL_SECONDS };
  const sandbox = createSandboxRail({ sql, delayMs: config.PAYOUT_SANDBOX_DELAY_MS });
  // The Paystack business's key (PAYSTACK_SECRET_KEY), or PAYOUT_PAYSTACK_SECRET_KEY for a separate one for payouts.
  const paystack: PayoutRail = createPaystackPayoutRail({ ...paystackPayoutSettings(config), banks: () => banks(paystack) });
  const flutterwave: PayoutRail = createFlutterwaveRail({
    secretKey: config.PAYOUT_FLUTTERWAVE_SECRET_KEY,
    baseUrl: config.PAYOUT_FLUTTERWAVE_BASE_URL,
    timeoutMs: config.PAYOUT_FLUTTERWAVE_TIMEOUT_MS,
    banks: () => banks(flutterwave),
  });
  // Test mode never holds a real rail: a test workspace's payouts reach the sandbox only.
  const all: Record<string, PayoutRail> = mode === 'test' ? { sandbox } : { sandbox, paystack, flutterwave };
  // PAYOUT_RAILS, unless PAYOUT_RAIL was changed on a loaded config without it (its first is PAYOUT_RAIL).
  const configured: readonly string[] = config.PAYOUT_RAILS[0] === config.PAYOUT_RAIL ? config.PAYOUT_RAILS : [config.PAYOUT_RAIL];
  const liveOrder = mode === 'test' ? ['sandbox'] : configured;
  const liveRail = all[liveOrder[0]!]!;
  const rules = mode === 'test' || liveOrder.length < 2 ? [] : parseRoutingRules(config.PAYOUT_ROUTING_RULES);
  const sandboxRoute: PayoutRoute = { rails: ['sandbox'], rule: null };
  // The operator's rules, read at most every TABLE_RULES_TTL_MS; with one rail there is nothing to choose and nothing is read.
  let tableRules: { rules: Promise<RoutingRule[]>; until: number } | null = null;
  const currentTableRules = (): Promise<RoutingRule[]> => {
    if (liveOrder.length < 2) return Promise.resolve([]);
    if (!tableRules || tableRules.until <= Date.now()) {
      const loading = tableRoutingRules(sql);
      tableRules = { rules: loading, until: Date.now() + TABLE_RULES_TTL_MS };
      loading.catch(() => {
        tableRules = null;
      });
    }
    return tableRules.rules;
  };
  const health =
    liveOrder.length > 1
      ? createRailHealth({
          redis,
          keyPrefix: config.REDIS_KEY_PREFIX,
          cooldownMs: config.PAYOUT_RAIL_COOLDOWN_MS,
          maxCooldownMs: config.PAYOUT_RAIL_MAX_COOLDOWN_MS,
        })
      : null;
  // In front of Redis, each process keeps the list briefly: a transfer names
  // its bank from it on every request.
  const localTtlMs = Math.min(LOCAL_BANKS_TTL_MS, config.PAYOUT_BANKS_CACHE_TTL_SECONDS * 1000);
  const local = new Map<string, { banks: Promise<Bank[]>; until: number }>();
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
      if (status === 'live') return liveRail;
      throw new AppError('coming_soon', `Payouts in ${currency.toUpperCase()} are coming soon`);
    },
    async route(payout) {
      const status = currencyStatus(payout.currency);
      if (status === 'sandbox') return sandboxRoute;
      if (status !== 'live') throw new AppError('coming_soon', `Payouts in ${payout.currency.toUpperCase()} are coming soon`);
      if (mode === 'test') return sandboxRoute;
      return routePayout([...(await currentTableRules()), ...rules], liveOrder, payout);
    },
    rules,
    order: liveOrder,
    health,
    byId(id) {
      const rail = all[id];
      if (!rail) throw new Error(`unknown payout rail ${id} in ${mode} mode`);
      return rail;
    },
    banks,
  };
}

/** The rails of each mode. */
export type ModeRails = Record<Mode, Rails>;

export function createModeRails(config: RailsConfig, stores: RailsStores): ModeRails {
  return { live: createRails(config, stores, 'live'), test: createRails(config, stores, 'test') };
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
    route: (payout) => rails.route(payout),
    rules: rails.rules,
    order: rails.order,
    health: rails.health,
    byId: (id) => once(rails.byId(id)),
    banks: (rail) => rails.banks(rail),
  };
}

/** mapRails over both modes (one wrapper per rail object, so the sandbox rail each mode holds is timed as one). */
export function mapModeRails(rails: ModeRails, wrap: (rail: PayoutRail) => PayoutRail): ModeRails {
  return { live: mapRails(rails.live, wrap), test: mapRails(rails.test, wrap) };
}
