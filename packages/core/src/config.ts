import { isIP } from 'node:net';
import { accessSync, constants } from 'node:fs';
import { z } from 'zod';
import { rememberPreviousSealingKeys } from './crypto';
import { parseCidr } from './cidr';
import { parseChannelOverride } from './channel-override';
import { parseRoutingRulesJson } from './routing-rules';

/** The payout rails a deployment can name in PAYOUT_RAIL / PAYOUT_RAILS. */
export const PAYOUT_RAIL_IDS = ['sandbox', 'paystack', 'flutterwave'] as const;
export type PayoutRailId = (typeof PAYOUT_RAIL_IDS)[number];

const DEV_ONLY_SESSION_SECRET = 'cowrie-dev-only-session-secret-do-not-use-in-production';
const DEV_ONLY_ENCRYPTION_KEY = '00'.repeat(31) + '01';
// Shipped as a default by earlier versions: refused where secrets are checked.
const DEV_ONLY_SANDBOX_SECRET = 'cowrie-dev-only-sandbox-notification-secret';

/**
 * Secrets anyone can read in this repository (the dev-only defaults above and
 * the placeholders older docker-compose files shipped): never accepted in
 * production, since whoever knows one can sign a session or open a sealed secret.
 */
const PUBLISHED_SECRETS = new Set([
  DEV_ONLY_SESSION_SECRET,
  DEV_ONLY_ENCRYPTION_KEY,
  DEV_ONLY_SANDBOX_SECRET,
  'change-me-to-a-long-random-secret-of-32-chars-or-more',
  '0000000000000000000000000000000000000000000000000000000000000001',
]);

/** Secrets checked for strength in production: what signs, seals or opens something. */
const PRODUCTION_SECRETS = ['JWT_SECRET', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS', 'COLLECTION_SANDBOX_SECRET', 'METRICS_TOKEN', 'OPS_PASSWORD'] as const;

/**
 * Every variable whose value is a secret or holds one: the log redaction
 * (log-redaction.ts) hides them by name wherever they appear in a log line.
 */
export const SECRET_CONFIG_KEYS = [
  'JWT_SECRET',
  'ENCRYPTION_KEY',
  'ENCRYPTION_KEY_PREVIOUS',
  'COLLECTION_SANDBOX_SECRET',
  'PAYSTACK_SECRET_KEY',
  'PAYOUT_PAYSTACK_SECRET_KEY',
  'PAYOUT_FLUTTERWAVE_SECRET_KEY',
  'PAYOUT_FLUTTERWAVE_WEBHOOK_HASH',
  'VERIFY_TERMII_API_KEY',
  'VERIFY_SMTP_URL',
  'VERIFY_TERMII_SECRET_KEY',
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_WEBHOOK_VERIFY_TOKEN',
  'METRICS_TOKEN',
  'OPS_PASSWORD',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
] as const;

/**
 * Why a secret is too weak to run production on, or null. A secret made as
 * the README says (`openssl rand -hex 32`) has 16 distinct characters spread
 * evenly; one typed by hand, a repeated pattern or a published placeholder
 * does not.
 */
export function weakSecretReason(value: string): string | null {
  if (PUBLISHED_SECRETS.has(value) || PUBLISHED_SECRETS.has(value.toLowerCase()))
    return 'is a value published in the Cowrie repository; generate one with `openssl rand -hex 32`';
  const distinct = new Set(value.toLowerCase()).size;
  if (distinct < 8) return `is too predictable (${distinct} distinct characters); generate one with \`openssl rand -hex 32\``;
  // Shannon entropy per character, times the length: bits an attacker must guess at most.
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / value.length) * Math.log2(n / value.length);
  if (perChar * value.length < 64) return 'is too short or too repetitive to resist guessing; generate one with `openssl rand -hex 32`';
  return null;
}

/** The rails that move live mode's money. */
const MONEY_RAILS = ['PAYOUT_RAIL', 'COLLECTION_RAIL'] as const;
/** Live mode's code delivery providers: a sandbox one sends no real message, but moves no money either. */
const CODE_PROVIDERS = ['VERIFY_SMS_PROVIDER', 'VERIFY_EMAIL_PROVIDER'] as const;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const nonNegativeInt = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);
const csv = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  );

const ZDecimalText = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^\d+(\.\d{1,6})?$/, 'expected a non-negative decimal'));
const ZFeeRule = z.object({ flat: ZDecimalText.default('0'), percent: ZDecimalText.default('0'), cap: ZDecimalText.optional() }).strict();
/** A payout fee rule: `flat + amount * percent / 100`, at most `cap` when set. Decimal strings. */
export type FeeRule = z.output<typeof ZFeeRule>;

function parseFeeSchedule(text: string, ctx: z.RefinementCtx): Record<string, FeeRule> {
  let json: unknown;
  try {
    json = JSON.parse(text || '{}');
  } catch {
    ctx.addIssue({ code: 'custom', message: 'expected a JSON object keyed by currency' });
    return z.NEVER;
  }
  const parsed = z.record(z.string(), ZFeeRule).safeParse(json);
  if (!parsed.success) {
    ctx.addIssue({ code: 'custom', message: `expected {"NGN":{"flat":"10","percent":"0.5","cap":"100"}}: ${parsed.error.issues[0]?.message}` });
    return z.NEVER;
  }
  return Object.fromEntries(Object.entries(parsed.data).map(([currency, rule]) => [currency.toUpperCase(), rule]));
}

/**
 * REDIS_URL as ioredis reads it: a redis:// or rediss:// URL (lower case:
 * ioredis turns TLS on for `rediss://` only); `//host:port[/db]`, or a bare
 * `host:port` (without a path: ioredis would read one as a Unix socket's), which
 * ioredis reads as redis://; or a Unix socket's absolute path (ioredis takes
 * `/path?db=2`). Another scheme (http://, a typo) is refused.
 */
function isRedisUrl(value: string): boolean {
  if (value.startsWith('/') && !value.startsWith('//')) return true;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  if (hasScheme && !value.startsWith('redis://') && !value.startsWith('rediss://')) return false;
  const bare = !hasScheme && !value.startsWith('//');
  try {
    const url = new URL(hasScheme ? value : `redis:${bare ? '//' : ''}${value}`);
    if (bare && url.pathname !== '' && url.pathname !== '/') return false;
    return url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * CHANNELS_OVERRIDE or CHANNELS_FILE, checked as the gateway's channel catalog
 * reads it (parseChannelOverride). A file that this process cannot read is not
 * refused here: only the gateway reads it (a file mounted into the gateway
 * alone must not stop the workers or the CLI), and the gateway's catalog
 * refuses it at start, naming the variable.
 */
const channelOverrideIssues = (variable: 'CHANNELS_OVERRIDE' | 'CHANNELS_FILE') => (value: string | undefined, ctx: z.RefinementCtx) => {
  if (value === undefined) return;
  if (variable === 'CHANNELS_FILE' && !isReadableFile(value)) return;
  const result = parseChannelOverride(variable, value);
  if ('problem' in result) ctx.addIssue({ code: 'custom', message: result.problem });
};

function isReadableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

// The named ranges express's `trust proxy` (proxy-addr) knows besides addresses and CIDRs.
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** True for an IPv4 or IPv6 address, or a CIDR of one with a prefix length in range. */
function isAddressOrCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  const family = isIP(slash < 0 ? entry : entry.slice(0, slash));
  if (family === 0) return false;
  if (slash < 0) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY, as express's `trust proxy` setting takes it: off (false), a
 * hop count (how many proxies in front append to X-Forwarded-For), or the
 * proxies' addresses and CIDRs. `true` (trust every hop) is refused: any
 * client could then choose its own address.
 */
function parseTrustProxy(raw: string | undefined, ctx: z.RefinementCtx): false | number | string[] {
  const text = raw?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const expected = "expected a hop count (0, 1, 2, ...) or a comma-separated list of the proxies' addresses and CIDRs";
  for (const entry of entries) {
    if (entry === '') {
      ctx.addIssue({ code: 'custom', message: `${expected}: the list has an empty entry` });
      return z.NEVER;
    }
    if (!PROXY_RANGE_NAMES.has(entry) && !isAddressOrCidr(entry)) {
      const why = entry === 'true' ? ' (trusting every hop would let any client choose its address)' : '';
      ctx.addIssue({ code: 'custom', message: `${expected}: "${entry}" is neither${why}` });
      return z.NEVER;
    }
  }
  return entries;
}

/**
 * Every setting Cowrie reads from the environment, in one place, each with
 * its own schema and default. Each variable has its own comment above it, its
 * meaning: docs/reference/configuration.md is made from those comments, the
 * schemas' defaults and CONFIG_RULES by `npm run docs:generate`, and a test
 * fails when the two differ. ZConfig adds CONFIG_RULES's checks.
 */
const ZConfigFields = z
  .object({
    // production turns on its checks (secrets, live rails) and defaults (second factors, a read-only Bull Board); test is the test suites'
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    // pino level for every service
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // auto: pretty on a terminal, JSON otherwise
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    // the gateway's listen port
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    // the gateway's listen address (0.0.0.0 in a container, behind a proxy)
    HOST: z.string().min(1).default('127.0.0.1'),
    // the Postgres database; `npm start` creates it when missing, migrations run before the services start
    DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/cowrie'),
    // connections per Postgres pool; every process has two (Prisma, and plain pg for the hot paths)
    DATABASE_POOL_SIZE: positiveInt(10),
    // a single Redis node (redis:// or rediss://, with credentials if any; host:port reads as redis://; or the path of its Unix socket); it must run with maxmemory-policy noeviction
    REDIS_URL: z
      .string()
      .refine(isRedisUrl, 'expected redis:// or rediss:// (host, port, credentials if any), host:port, or the absolute path of a Unix socket')
      .default('redis://127.0.0.1:6379'),
    // host:port,host:port — when set, ioredis connects to a Redis Cluster instead of REDIS_URL
    REDIS_CLUSTER_NODES: csv,
    // host:port,host:port of Sentinels, with REDIS_SENTINEL_NAME the master's name
    REDIS_SENTINELS: csv,
    // the name of the master the Sentinels watch
    REDIS_SENTINEL_NAME: z.string().default('mymaster'),
    // user name of the Redis nodes (a single node's REDIS_URL may carry its own instead)
    REDIS_USERNAME: z.string().min(1).optional(),
    // password of the Redis nodes (a single node's REDIS_URL may carry its own instead)
    REDIS_PASSWORD: z.string().min(1).optional(),
    // the Sentinels' own password, when they have one
    REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
    // TLS to every node and Sentinel (a single node can say rediss:// instead)
    REDIS_TLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // a PEM file of the CA that signed the Redis servers' certificates, when it is not a public one
    REDIS_TLS_CA_FILE: z.string().min(1).optional(),
    // BullMQ prefix; hash-tagged so every queue key lands on one Cluster slot
    QUEUE_PREFIX: z.string().min(1).default('{cowrie}'),
    // prefix of Cowrie's own Redis keys (rate limits, caches)
    REDIS_KEY_PREFIX: z.string().min(1).default('cowrie:'),
    // which client address the gateway sees behind proxies (express's `trust proxy`): unset (off: the socket's
    // address), a hop count (1: the address the one proxy in front appended to X-Forwarded-For), or the proxies'
    // addresses and CIDRs, comma-separated (loopback, linklocal and uniquelocal name those ranges)
    TRUST_PROXY: z.string().optional().transform(parseTrustProxy),
    // largest JSON body the gateway accepts
    BODY_LIMIT: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 100kb')
      .default('100kb'),
    // HMAC secret for dashboard session JWTs
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    // lifetime of a dashboard session
    JWT_TTL_SECONDS: positiveInt(8 * 3600),
    // failed dashboard sign-ins per client address (an IPv6 one by its /64) per 15 minutes
    AUTH_LOGIN_IP_FAILURE_LIMIT: positiveInt(50),
    // failed dashboard sign-ins across every email and address per 15 minutes before each attempt is slowed (never refused)
    AUTH_LOGIN_GLOBAL_FAILURE_LIMIT: positiveInt(1000),
    // owners and admins without a second factor may sign in only to enrol one: `true` by default in production, `false` elsewhere
    REQUIRE_MFA_FOR_ADMINS: z.enum(['true', 'false']).optional(),
    // how long a sign-in or a step-up (a code, or the password of a user without a second factor) lets a session move money, make keys, invite, or add webhook endpoints or change their URLs
    STEP_UP_SECONDS: positiveInt(300),
    // the dashboard's public address, as its users reach it (https://pay.example.com/dashboard): the base of the links in password reset and invitation emails; outside production http://localhost:PORT/dashboard by default
    DASHBOARD_URL: z.string().url().optional(),
    // how the team page's invitations reach their user: a link by email, or a one-time password the inviter passes on; by default email when VERIFY_EMAIL_PROVIDER=smtp and DASHBOARD_URL is known
    DASHBOARD_INVITES: z.enum(['email', 'one_time_password']).optional(),
    // 64 hex characters (32 bytes): AES-256-GCM key for secrets at rest and in job data
    ENCRYPTION_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters')
      .optional(),
    // the ENCRYPTION_KEY it replaced, while rotating: it still opens what it sealed, never seals; drop it once `cowrie secrets reseal` ran
    ENCRYPTION_KEY_PREVIOUS: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters')
      .optional(),
    // requests per API key per fixed 60-second window
    PUBLIC_API_RATE_LIMIT: positiveInt(120),
    // /v1 requests refused 401 (no key, or an unknown or revoked one) per client address per fixed 60-second window; past it, that address gets 429 (whatever key it sends) until the window ends
    PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT: positiveInt(1200),
    // how long a request waits for an in-flight request with the same Idempotency-Key
    IDEMPOTENCY_WAIT_MS: nonNegativeInt(5000),
    // JSON object keyed by channel id overriding the deposit channel catalog, e.g. {"open_banking":{"status":"live"}};
    // each of a channel's currencies must be in the wallet catalog (a deposit in another could never be credited)
    CHANNELS_OVERRIDE: z.string().optional().superRefine(channelOverrideIssues('CHANNELS_OVERRIDE')),
    // path of a JSON file with the same shape as CHANNELS_OVERRIDE
    CHANNELS_FILE: z.string().optional().superRefine(channelOverrideIssues('CHANNELS_FILE')),
    // where open banking deposits redirect the payer; open banking needs it to be live
    OPEN_BANKING_REDIRECT_URL: z.string().url().optional(),
    // which collection rail opens one-off and reserved accounts: the offline sandbox or Paystack
    COLLECTION_RAIL: z.enum(['sandbox', 'paystack']).default('sandbox'),
    // deprecated, use PAYSTACK_TIMEOUT_MS: when set, still the collection rail's per-request timeout (opening an account), and a warning is logged at start-up
    COLLECTION_RAIL_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
    // sandbox rail only: when true every account opening fails (503 provider_error), for tests and demos
    COLLECTION_SANDBOX_FAIL: z
      .enum(['true', 'false', '1', '0'])
      .default('false')
      .transform((v) => v === 'true' || v === '1'),
    // HMAC-SHA512 key of POST /rails/sandbox/notifications; the route exists only with COLLECTION_RAIL=sandbox and this set (no default: a known key would let anyone credit themselves)
    COLLECTION_SANDBOX_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    // the Paystack business's secret key (sk_...; sk_live_ in production), read by both Paystack rails (COLLECTION_RAIL=paystack, and PAYOUT_RAIL or
    // PAYOUT_RAILS naming paystack unless PAYOUT_PAYSTACK_SECRET_KEY is set): authenticates API calls and signs its notifications (x-paystack-signature)
    PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
    // Paystack API base URL of both Paystack rails (tests point it at a local stand-in)
    PAYSTACK_BASE_URL: z.string().url().default('https://api.paystack.co'),
    // per-request timeout of a Paystack call, both rails: a timed-out transfer is re-queried, never re-sent blindly; a timed-out account opening answers 503
    PAYSTACK_TIMEOUT_MS: positiveInt(15_000),
    // bank slug Paystack opens dedicated (reserved) accounts at
    PAYSTACK_PREFERRED_BANK: z.string().min(1).default('wema-bank'),
    // how long the gateway waits for a payout's rail outcome before answering `processing`
    PAYOUT_SYNC_WAIT_MS: nonNegativeInt(10_000),
    // payout rail of the `live` wallet currencies (NGN): the offline sandbox or Paystack; `sandbox` currencies always use the sandbox
    PAYOUT_RAIL: z.enum(PAYOUT_RAIL_IDS).default('sandbox'),
    // the payout rails of the `live` currencies in order of preference, comma-separated (paystack,flutterwave): a payout goes to the
    // first (or the first its routing rule names) and moves to the next only when a rail certainly did not take it; overrides PAYOUT_RAIL
    PAYOUT_RAILS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v.trim() === '') return undefined;
        const list = v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        for (const id of list)
          if (!(PAYOUT_RAIL_IDS as readonly string[]).includes(id)) {
            ctx.addIssue({ code: 'custom', message: `names an unknown rail ${id} (one of ${PAYOUT_RAIL_IDS.join(', ')})` });
            return z.NEVER;
          }
        if (new Set(list).size !== list.length) {
          ctx.addIssue({ code: 'custom', message: 'names a rail twice' });
          return z.NEVER;
        }
        return list as PayoutRailId[];
      }),
    // routing rules for payouts over several rails, JSON: [{"currency":"NGN","bank_codes":["058"],"min_amount":"0","max_amount":"50000",
    // "workspace_id":1,"rails":["flutterwave","paystack"],"name":"gtb-small"}]; the first rule that matches a payout orders its rails
    PAYOUT_ROUTING_RULES: z
      .string()
      .default('[]')
      .superRefine((json, ctx) => {
        const result = parseRoutingRulesJson(json);
        if ('problem' in result) ctx.addIssue({ code: 'custom', message: result.problem });
      }),
    // how long a rail that failed on its own (down, refused credentials, its balance too low) is skipped, doubling while it keeps failing
    PAYOUT_RAIL_COOLDOWN_MS: positiveInt(30_000),
    // the longest that cool-down grows to
    PAYOUT_RAIL_MAX_COOLDOWN_MS: positiveInt(10 * 60_000),
    // payout fees per currency (or "*"), JSON: {"NGN":{"flat":"10","percent":"0.5","cap":"100"}}; default none
    PAYOUT_FEE_SCHEDULE: z.string().default('{}').transform(parseFeeSchedule),
    // artificial latency of every sandbox rail transfer and verify (tests of slow rails; not checked in production: leave it 0 there)
    PAYOUT_SANDBOX_DELAY_MS: nonNegativeInt(0),
    // optional: the secret key of a separate Paystack business for payouts (sk_...; sk_live_ in production); unset, payouts use PAYSTACK_SECRET_KEY,
    // and with neither the Paystack payout rail answers 503
    PAYOUT_PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
    // deprecated, use PAYSTACK_BASE_URL: when set, still the Paystack payout rail's base URL, and a warning is logged at start-up
    PAYOUT_PAYSTACK_BASE_URL: z.string().url().optional(),
    // deprecated, use PAYSTACK_TIMEOUT_MS: when set, still the Paystack payout rail's per-request timeout, and a warning is logged at start-up
    PAYOUT_PAYSTACK_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
    // Flutterwave secret key (FLWSECK-...; required, and not a test key, in production when PAYOUT_RAILS names flutterwave); without it the rail answers 503
    PAYOUT_FLUTTERWAVE_SECRET_KEY: z.string().optional(),
    // Flutterwave API base URL, without /v3 (tests point it at a local stand-in)
    PAYOUT_FLUTTERWAVE_BASE_URL: z.string().url().default('https://api.flutterwave.com'),
    // the secret hash set on the Flutterwave dashboard, sent back in each webhook's verif-hash header; POST /rails/flutterwave/notifications exists only with it
    PAYOUT_FLUTTERWAVE_WEBHOOK_HASH: z.string().min(1).optional(),
    // per-request timeout of a Flutterwave call; a timed-out transfer is re-queried, never re-sent blindly
    PAYOUT_FLUTTERWAVE_TIMEOUT_MS: positiveInt(15_000),
    // how long the bank list of a rail stays cached in Redis
    PAYOUT_BANKS_CACHE_TTL_SECONDS: positiveInt(3600),
    // how often the payout reconciler looks for processing payouts left without a live job
    PAYOUT_RECONCILE_EVERY_MS: positiveInt(30_000),
    // how often each payout worker audits the whole ledger (one read-only snapshot) for the monitoring's gauges and alert; 0: never
    LEDGER_AUDIT_EVERY_MS: nonNegativeInt(3_600_000),
    // a processing payout untouched for this long and without a live job is re-queued
    PAYOUT_RECONCILE_AFTER_MS: positiveInt(60_000),
    // BullMQ lock of a payout job; a job of a worker that died is handed to another after it
    PAYOUT_JOB_LOCK_MS: positiveInt(30_000),
    // a payout whose rail outcome is unknown (a timeout, a reset, a 5xx after sending) stays processing with its hold;
    // it is marked failed only after the rail kept not knowing its reference for this long (at least 10 minutes in production)
    PAYOUT_UNKNOWN_GRACE_MS: positiveInt(30 * 60_000),
    // first re-check of an unknown outcome; later ones back off (doubling) up to PAYOUT_UNKNOWN_MAX_CHECK_MS
    PAYOUT_UNKNOWN_FIRST_CHECK_MS: positiveInt(5_000),
    // the longest wait between two re-checks of an unknown outcome
    PAYOUT_UNKNOWN_MAX_CHECK_MS: positiveInt(5 * 60_000),
    // the reversal watch: a completed payout is asked about again (is it reversed?) for this many hours after it settled,
    // first PAYOUT_REVERSAL_FIRST_CHECK_MS after it was sent, then twice as long each time, and once more at the end,
    // so a reversal is found even when the rail's notification is lost
    PAYOUT_REVERSAL_WATCH_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 365)
      .default(72),
    // the reversal watch's first question, this long after the payout was sent
    PAYOUT_REVERSAL_FIRST_CHECK_MS: positiveInt(15 * 60_000),
    // how long the gateway waits for a code delivery outcome
    VERIFY_SYNC_WAIT_MS: nonNegativeInt(10_000),
    // verifications started per destination (every channel counted) per VERIFY_RATE_WINDOW_SECONDS, checked before a code is sent
    VERIFY_RATE_DEST_LIMIT: positiveInt(5),
    // verifications started per workspace per VERIFY_RATE_WINDOW_SECONDS
    VERIFY_RATE_BIZ_LIMIT: positiveInt(20),
    // the window of both verification limits, sliding: at most the limit within any such span
    VERIFY_RATE_WINDOW_SECONDS: positiveInt(900),
    // checks of a code before its verification fails
    VERIFY_MAX_ATTEMPTS: positiveInt(5),
    // how long a code can be checked after it was sent
    VERIFY_CODE_TTL_SECONDS: positiveInt(300),
    // who delivers sms and voice codes: the offline sandbox or Termii's HTTP API
    VERIFY_SMS_PROVIDER: z.enum(['sandbox', 'termii']).default('sandbox'),
    // who delivers email codes: the offline sandbox or an SMTP server (VERIFY_SMTP_URL)
    VERIFY_EMAIL_PROVIDER: z.enum(['sandbox', 'smtp']).default('sandbox'),
    // smtp(s)://user:pass@host:port of the mail server used when VERIFY_EMAIL_PROVIDER=smtp
    VERIFY_SMTP_URL: z.string().url().optional(),
    // From: header of verification emails
    VERIFY_EMAIL_FROM: z.string().min(3).default('Cowrie <no-reply@cowrie.local>'),
    // Termii API key, required when VERIFY_SMS_PROVIDER=termii
    VERIFY_TERMII_API_KEY: z.string().min(1).optional(),
    // Termii base URL (the account's region), without a trailing path
    VERIFY_TERMII_BASE_URL: z.string().url().default('https://api.ng.termii.com'),
    // Termii sender id of sms codes (3 to 11 characters, registered with Termii)
    VERIFY_TERMII_SENDER_ID: z.string().min(3).max(11).default('Cowrie'),
    // Termii sms route: generic, or dnd for numbers on Do-Not-Disturb
    VERIFY_TERMII_CHANNEL: z.enum(['generic', 'dnd']).default('generic'),
    // Termii secret key: checks X-Termii-Signature on its delivery reports (POST /rails/termii/reports); reports are refused without it
    VERIFY_TERMII_SECRET_KEY: z.string().min(1).optional(),
    // who delivers whatsapp codes: the offline sandbox or the WhatsApp Business Cloud API (WHATSAPP_*)
    VERIFY_WHATSAPP_PROVIDER: z.enum(['sandbox', 'whatsapp_cloud']).default('sandbox'),
    // WhatsApp Business Cloud API: a system user's access token (required with VERIFY_WHATSAPP_PROVIDER=whatsapp_cloud)
    WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional(),
    // WhatsApp Business Cloud API: the sending phone number's id (required with VERIFY_WHATSAPP_PROVIDER=whatsapp_cloud)
    WHATSAPP_PHONE_NUMBER_ID: z.string().regex(/^\d+$/, 'must be the numeric phone number id').optional(),
    // the name of an approved authentication template with a copy-code button; the code is its body parameter
    WHATSAPP_TEMPLATE_NAME: z.string().min(1).max(512).default('verification_code'),
    // the language the template was approved in
    WHATSAPP_TEMPLATE_LANGUAGE: z.string().min(2).max(15).default('en_US'),
    // the Graph API base URL, with its version
    WHATSAPP_BASE_URL: z.string().url().default('https://graph.facebook.com/v21.0'),
    // the Meta app's secret: checks X-Hub-Signature-256 on WhatsApp status callbacks (POST /rails/whatsapp/reports); refused without it
    WHATSAPP_APP_SECRET: z.string().min(1).optional(),
    // the token Meta echoes when the callback URL is subscribed (GET /rails/whatsapp/reports?hub.verify_token=...)
    WHATSAPP_WEBHOOK_VERIFY_TOKEN: z.string().min(1).optional(),
    // the guard against SMS pumping (sms and voice starts per workspace and destination prefix over a sliding hour):
    // off; monitor (count and log, refuse nothing); block (refuse new starts to a prefix with low conversion)
    VERIFY_FRAUD_GUARD: z.enum(['off', 'monitor', 'block']).default('monitor'),
    // a prefix is judged once it had this many starts in the hour...
    VERIFY_FRAUD_GUARD_MIN_STARTS: positiveInt(30),
    // ...and is blocked while its verified / started stays below this
    VERIFY_FRAUD_GUARD_MIN_CONVERSION: z.coerce.number().min(0).max(1).default(0.2),
    // per-call timeout of a delivery provider (SMTP or HTTP)
    VERIFY_PROVIDER_TIMEOUT_MS: positiveInt(8000),
    // how long the sandbox keeps the last messages of a destination in Redis
    VERIFY_SANDBOX_RETENTION_SECONDS: positiveInt(3600),
    // CIDRs outbound webhooks may reach although private or loopback (tests: 127.0.0.0/8)
    WEBHOOK_ALLOWED_CIDRS: csv.superRefine((entries, ctx) => {
      for (const entry of entries) {
        try {
          parseCidr(entry);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }
    }),
    // per-attempt timeout of a webhook delivery
    WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
    // dashboard routes: requests per session per 60 s window (shared by all gateway replicas)
    DASHBOARD_RATE_LIMIT: positiveInt(600),
    // webhook endpoints a workspace may have at once
    WEBHOOK_ENDPOINTS_MAX: positiveInt(20),
    // POST /webhook-endpoints/:id/test per endpoint per 60 s window
    WEBHOOK_TEST_RATE_LIMIT: positiveInt(30),
    // how often each webhook-sender looks for unrelayed outbox events (wake-up jobs come sooner): an
    // event waits for the next poll, and an empty poll is one indexed read
    WEBHOOK_RELAY_POLL_MS: positiveInt(20),
    // outbox events claimed per relay transaction
    WEBHOOK_RELAY_BATCH_SIZE: positiveInt(200),
    // a delivery still pending this long without a live job is queued again (crash between commit and enqueue)
    WEBHOOK_SWEEP_AFTER_MS: positiveInt(10_000),
    // automatic disable: an endpoint whose every dispatch failed for this long (default 5 days)...
    WEBHOOK_DISABLE_AFTER_SECONDS: positiveInt(432_000),
    // ...and at least this many times is switched off, and its workspace's other endpoints told
    WEBHOOK_DISABLE_MIN_FAILURES: positiveInt(10),
    // a recover sends an endpoint at most this many deliveries per second (each gives way to live deliveries)
    WEBHOOK_RECOVER_RATE_PER_SECOND: positiveInt(10),
    // concurrent payout jobs per payout-worker process
    PAYOUT_WORKER_CONCURRENCY: positiveInt(16),
    // concurrent code deliveries per verification-dispatcher process
    VERIFICATION_WORKER_CONCURRENCY: positiveInt(16),
    // BullMQ lock of a code-delivery job; a job of a dispatcher that died is handed to another after it
    VERIFY_JOB_LOCK_MS: positiveInt(30_000),
    // deliveries wait on receivers (up to WEBHOOK_TIMEOUT_MS each), not on this process's CPU
    WEBHOOK_WORKER_CONCURRENCY: positiveInt(100),
    // deliveries in flight to one endpoint at once, across every webhook-sender: one more is put back for later (no attempt
    // counted), so a slow endpoint holds at most this many of the senders' WEBHOOK_WORKER_CONCURRENCY slots
    WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(10),
    // how long a worker waits for in-flight jobs on SIGTERM before handing them back
    SHUTDOWN_GRACE_MS: positiveInt(10_000),
    // gateway on SIGTERM: keeps serving (with /readyz 503 and Connection: close) this long so load balancers stop routing to it
    SHUTDOWN_DRAIN_MS: nonNegativeInt(1000),
    // operator token for GET /metrics (Authorization: Bearer <token>); gateway /metrics is off (404) without it, worker ports require it when set
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    // listen address of the workers' metrics ports
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    // the payout-worker's metrics and health port (/metrics, /healthz, /readyz); unset means no port
    PAYOUT_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    // the verification-dispatcher's metrics and health port; unset means no port
    VERIFICATION_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    // the webhook-sender's metrics and health port; unset means no port
    WEBHOOK_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    // Bull Board at /ops/queues: the operator's HTTP basic user name; the board is off (404) unless it and OPS_PASSWORD are set
    OPS_USERNAME: z.string().min(1).optional(),
    // the operator's HTTP basic password of Bull Board
    OPS_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
    // Bull Board without retry, clean, pause or delete: `true` by default in production, `false` elsewhere
    OPS_BOARD_READ_ONLY: z.enum(['true', 'false']).optional(),
    // in production, live mode may run on sandbox rails (both, never one beside a real one) or code providers only when this says so (a staging deployment)
    ALLOW_SANDBOX_IN_PRODUCTION: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
  })
  .transform((c) => {
    const production = c.NODE_ENV === 'production';
    const payoutRails = c.PAYOUT_RAILS ?? [c.PAYOUT_RAIL];
    return {
      ...c,
      // PAYOUT_RAILS wins; PAYOUT_RAIL is the first of them (a single rail is PAYOUT_RAIL's behaviour).
      PAYOUT_RAILS: payoutRails,
      PAYOUT_RAIL: payoutRails[0]!,
      OPS_BOARD_READ_ONLY: c.OPS_BOARD_READ_ONLY === undefined ? production : c.OPS_BOARD_READ_ONLY === 'true',
      REQUIRE_MFA_FOR_ADMINS: c.REQUIRE_MFA_FOR_ADMINS === undefined ? production : c.REQUIRE_MFA_FOR_ADMINS === 'true',
      JWT_SECRET: c.JWT_SECRET ?? (production ? '' : DEV_ONLY_SESSION_SECRET),
      ENCRYPTION_KEY: c.ENCRYPTION_KEY ?? (production ? '' : DEV_ONLY_ENCRYPTION_KEY),
      DASHBOARD_URL: (c.DASHBOARD_URL ?? (production ? undefined : `http://localhost:${c.PORT}/dashboard`))?.replace(/\/+$/, ''),
      DASHBOARD_INVITES: c.DASHBOARD_INVITES ?? (c.VERIFY_EMAIL_PROVIDER === 'smtp' && (c.DASHBOARD_URL || !production) ? 'email' : 'one_time_password'),
    };
  });

/** The configuration as the schema parsed it, before the rules below judge it. */
type ParsedConfig = z.output<typeof ZConfigFields>;
type ConfigName = keyof ParsedConfig;

/**
 * One rule the configuration is held to beyond each variable's own schema:
 * in production only, or everywhere. A rule names the variables its issues
 * may be about (its check cannot name another: the type says so) and says, in
 * `production`, what it asks of them: docs/reference/configuration.md shows
 * that beside each variable, so the reference says what these checks do.
 */
interface ConfigRule<V extends ConfigName> {
  applies: 'production' | 'everywhere';
  variables: readonly V[];
  /** What the rule asks of its variables, as the configuration reference says it. */
  production: string;
  check: (c: ParsedConfig) => Array<{ variable: NoInfer<V>; message: string }>;
}
const rule = <const V extends ConfigName>(r: ConfigRule<V>): ConfigRule<V> => r;

/** Every rule of CONFIG_RULES, for a reader that does not need each one's variables' types. */
export interface ConfigRuleSummary {
  applies: 'production' | 'everywhere';
  variables: readonly string[];
  production: string;
  check: (c: ParsedConfig) => Array<{ variable: string; message: string }>;
}

/**
 * Every rule ZConfig checks after parsing, in the order its issues are
 * reported. loadConfig refuses a configuration that breaks one, naming the
 * variable; the configuration reference's "in production" column is made from
 * these declarations.
 */
export const CONFIG_RULES: readonly ConfigRuleSummary[] = [
  rule({
    applies: 'production',
    variables: ['JWT_SECRET', 'ENCRYPTION_KEY'],
    production: 'required',
    check: (c) =>
      (['JWT_SECRET', 'ENCRYPTION_KEY'] as const).filter((name) => !c[name]).map((variable) => ({ variable, message: 'is required in production' })),
  }),
  rule({
    applies: 'production',
    variables: PRODUCTION_SECRETS,
    production: 'refused when weak or a value published in this repository (`openssl rand -hex 32` makes one)',
    check: (c) =>
      PRODUCTION_SECRETS.flatMap((variable) => {
        const value = c[variable];
        const reason = value ? weakSecretReason(value) : null;
        return reason ? [{ variable, message: reason }] : [];
      }),
  }),
  rule({
    applies: 'production',
    variables: ['DASHBOARD_URL'],
    production: 'required when DASHBOARD_INVITES=email (the links in the emails)',
    check: (c) =>
      c.DASHBOARD_INVITES === 'email' && !c.DASHBOARD_URL
        ? [{ variable: 'DASHBOARD_URL', message: 'is required in production when DASHBOARD_INVITES=email (the links in the emails)' }]
        : [],
  }),
  rule({
    applies: 'everywhere',
    variables: ['VERIFY_SMTP_URL'],
    production: 'required when VERIFY_EMAIL_PROVIDER=smtp',
    check: (c) =>
      c.VERIFY_EMAIL_PROVIDER === 'smtp' && !c.VERIFY_SMTP_URL ? [{ variable: 'VERIFY_SMTP_URL', message: 'is required when VERIFY_EMAIL_PROVIDER=smtp' }] : [],
  }),
  rule({
    applies: 'everywhere',
    variables: ['VERIFY_TERMII_API_KEY'],
    production: 'required when VERIFY_SMS_PROVIDER=termii',
    check: (c) =>
      c.VERIFY_SMS_PROVIDER === 'termii' && !c.VERIFY_TERMII_API_KEY
        ? [{ variable: 'VERIFY_TERMII_API_KEY', message: 'is required when VERIFY_SMS_PROVIDER=termii' }]
        : [],
  }),
  rule({
    applies: 'everywhere',
    variables: ['WHATSAPP_ACCESS_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID'],
    production: 'required when VERIFY_WHATSAPP_PROVIDER=whatsapp_cloud',
    check: (c) =>
      c.VERIFY_WHATSAPP_PROVIDER === 'whatsapp_cloud'
        ? (['WHATSAPP_ACCESS_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID'] as const)
            .filter((name) => !c[name])
            .map((variable) => ({ variable, message: 'is required when VERIFY_WHATSAPP_PROVIDER=whatsapp_cloud' }))
        : [],
  }),
  rule({
    applies: 'production',
    variables: ['PAYOUT_UNKNOWN_GRACE_MS'],
    production: 'at least 600000 (10 minutes): a rail can commit a transfer long after a timeout',
    check: (c) =>
      c.PAYOUT_UNKNOWN_GRACE_MS < 10 * 60_000
        ? [
            {
              variable: 'PAYOUT_UNKNOWN_GRACE_MS',
              message: 'must be at least 600000 (10 minutes) in production: a rail can commit a transfer long after a timeout',
            },
          ]
        : [],
  }),
  rule({
    applies: 'everywhere',
    variables: ['METRICS_TOKEN'],
    production: 'required when a worker metrics port listens beyond loopback (METRICS_HOST other than 127.x, localhost or ::1)',
    check: (c) => {
      const workerPorts = [c.PAYOUT_WORKER_METRICS_PORT, c.VERIFICATION_WORKER_METRICS_PORT, c.WEBHOOK_WORKER_METRICS_PORT].some((port) => port !== undefined);
      const loopbackOnly = /^(127\.|localhost$|::1$)/.test(c.METRICS_HOST);
      return workerPorts && !loopbackOnly && !c.METRICS_TOKEN
        ? [{ variable: 'METRICS_TOKEN', message: `is required when worker metrics ports listen beyond loopback (METRICS_HOST=${c.METRICS_HOST})` }]
        : [];
    },
  }),
  rule({
    applies: 'production',
    variables: ['PAYOUT_RAILS'],
    production: 'refused when it mixes sandbox with a real rail: the payout rails are all real or all sandbox',
    check: (c) =>
      // A failover must never move a payout between play money and real money.
      c.PAYOUT_RAILS.includes('sandbox') && c.PAYOUT_RAILS.some((r) => r !== 'sandbox')
        ? [
            {
              variable: 'PAYOUT_RAILS',
              message: `mixes sandbox with a real rail (${c.PAYOUT_RAILS.join(',')}): in production a deployment's payout rails are all real or all sandbox`,
            },
          ]
        : [],
  }),
  rule({
    applies: 'production',
    variables: ['PAYOUT_FLUTTERWAVE_SECRET_KEY'],
    production: 'required, and a live key (FLWSECK-…, not FLWSECK_TEST…), when PAYOUT_RAILS names flutterwave',
    check: (c) => {
      if (!c.PAYOUT_RAILS.includes('flutterwave')) return [];
      const key = c.PAYOUT_FLUTTERWAVE_SECRET_KEY;
      if (!key) return [{ variable: 'PAYOUT_FLUTTERWAVE_SECRET_KEY', message: 'is required in production when PAYOUT_RAILS names flutterwave' }];
      if (/^FLWSECK_TEST/i.test(key) || !key.startsWith('FLWSECK'))
        return [
          {
            variable: 'PAYOUT_FLUTTERWAVE_SECRET_KEY',
            message: `is ${key.startsWith('FLWSECK') ? 'a test key (FLWSECK_TEST…)' : 'not a Flutterwave secret key'}: in production it must be a live key (FLWSECK-…)`,
          },
        ];
      return [];
    },
  }),
  rule({
    applies: 'production',
    variables: MONEY_RAILS,
    production:
      '`sandbox` refused beside a real rail (even with ALLOW_SANDBOX_IN_PRODUCTION: a mix lets sandbox money reach a real payout), and alone unless ALLOW_SANDBOX_IN_PRODUCTION=true (a staging deployment)',
    check: moneyRailIssues,
  }),
  rule({
    applies: 'production',
    variables: ['PAYSTACK_SECRET_KEY', 'PAYOUT_PAYSTACK_SECRET_KEY'],
    production:
      "a live key (sk_live_…) when a Paystack rail uses it; the payout rail's key (this one, or PAYSTACK_SECRET_KEY when this is unset) is required when PAYOUT_RAIL or PAYOUT_RAILS names paystack",
    check: paystackKeyIssues,
  }),
  rule({
    applies: 'production',
    variables: CODE_PROVIDERS,
    production: '`sandbox` refused unless ALLOW_SANDBOX_IN_PRODUCTION=true (a staging deployment)',
    check: (c) =>
      c.ALLOW_SANDBOX_IN_PRODUCTION
        ? []
        : CODE_PROVIDERS.filter((name) => c[name] === 'sandbox').map((variable) => ({
            variable,
            message: 'is sandbox: live mode in production needs a real provider, or ALLOW_SANDBOX_IN_PRODUCTION=true (a staging deployment)',
          })),
  }),
  rule({
    applies: 'everywhere',
    variables: ['PAYSTACK_SECRET_KEY'],
    production: 'required when COLLECTION_RAIL=paystack',
    check: (c) =>
      c.COLLECTION_RAIL === 'paystack' && !c.PAYSTACK_SECRET_KEY
        ? [{ variable: 'PAYSTACK_SECRET_KEY', message: 'is required when COLLECTION_RAIL is paystack' }]
        : [],
  }),
];

/**
 * Every setting Cowrie reads from the environment, in one place. A bad value
 * stops start-up with a message naming the variable (see loadConfig), and so
 * does a configuration that breaks one of CONFIG_RULES.
 */
export const ZConfig = ZConfigFields.superRefine((c, ctx) => {
  const production = c.NODE_ENV === 'production';
  for (const r of CONFIG_RULES) {
    if (r.applies === 'production' && !production) continue;
    for (const issue of r.check(c)) ctx.addIssue({ code: 'custom', path: [issue.variable], message: issue.message });
  }
});

/**
 * What each variable is when unset, in development or in production: the
 * schema's default, or the one the environment gives it (a second factor
 * required and a read-only Bull Board in production; no session secret,
 * sealing key or dashboard address there). The configuration reference shows
 * the production one where it differs.
 */
export function configDefaults(nodeEnv: 'development' | 'production'): Readonly<Record<string, unknown>> {
  return ZConfigFields.parse({ NODE_ENV: nodeEnv });
}

export type Config = z.output<typeof ZConfig>;

/** The Paystack variables, of both rails and the older names still honoured. */
export type PaystackConfig = Pick<
  Config,
  | 'PAYSTACK_SECRET_KEY'
  | 'PAYSTACK_BASE_URL'
  | 'PAYSTACK_TIMEOUT_MS'
  | 'PAYOUT_PAYSTACK_SECRET_KEY'
  | 'PAYOUT_PAYSTACK_BASE_URL'
  | 'PAYOUT_PAYSTACK_TIMEOUT_MS'
  | 'COLLECTION_RAIL_TIMEOUT_MS'
>;

/** How one Paystack rail reaches Paystack: its key (and the variable that holds it), base URL and per-request timeout. */
export interface PaystackSettings {
  secretKey: string | undefined;
  /** The variable named when the key is missing or Paystack refuses it. */
  keySetting: 'PAYSTACK_SECRET_KEY' | 'PAYOUT_PAYSTACK_SECRET_KEY';
  baseUrl: string;
  timeoutMs: number;
}

/**
 * The Paystack payout rail's settings: PAYSTACK_* as the collection rail
 * reads them, with PAYOUT_PAYSTACK_SECRET_KEY (a separate Paystack business
 * for payouts) taking the key's place when set, and the deprecated
 * PAYOUT_PAYSTACK_BASE_URL and PAYOUT_PAYSTACK_TIMEOUT_MS still winning when set.
 */
export function paystackPayoutSettings(c: PaystackConfig): PaystackSettings {
  return {
    secretKey: c.PAYOUT_PAYSTACK_SECRET_KEY ?? c.PAYSTACK_SECRET_KEY,
    keySetting: c.PAYOUT_PAYSTACK_SECRET_KEY ? 'PAYOUT_PAYSTACK_SECRET_KEY' : 'PAYSTACK_SECRET_KEY',
    baseUrl: c.PAYOUT_PAYSTACK_BASE_URL ?? c.PAYSTACK_BASE_URL,
    timeoutMs: c.PAYOUT_PAYSTACK_TIMEOUT_MS ?? c.PAYSTACK_TIMEOUT_MS,
  };
}

/** The Paystack collection rail's settings: PAYSTACK_*, with the deprecated COLLECTION_RAIL_TIMEOUT_MS still winning when set. */
export function paystackCollectionSettings(c: PaystackConfig): PaystackSettings {
  return {
    secretKey: c.PAYSTACK_SECRET_KEY,
    keySetting: 'PAYSTACK_SECRET_KEY',
    baseUrl: c.PAYSTACK_BASE_URL,
    timeoutMs: c.COLLECTION_RAIL_TIMEOUT_MS ?? c.PAYSTACK_TIMEOUT_MS,
  };
}

/** Names earlier versions read, still honoured where they applied: each one set is warned about at start-up. */
const DEPRECATED_CONFIG_NAMES = [
  { name: 'PAYOUT_PAYSTACK_BASE_URL', use: 'PAYSTACK_BASE_URL', still: "the Paystack payout rail's base URL" },
  { name: 'PAYOUT_PAYSTACK_TIMEOUT_MS', use: 'PAYSTACK_TIMEOUT_MS', still: "the Paystack payout rail's timeout" },
  { name: 'COLLECTION_RAIL_TIMEOUT_MS', use: 'PAYSTACK_TIMEOUT_MS', still: "the collection rail's timeout" },
] as const;

/** One deprecated variable the environment sets: its name, what replaces it, and the warning (never the value). */
export interface ConfigDeprecation {
  variable: string;
  replacement: string;
  message: string;
}

/** The deprecated variables `env` sets (an empty value is unset, as loadConfig reads it); a loaded Config answers the same. */
export function configDeprecations(env: Readonly<Record<string, unknown>> = process.env): ConfigDeprecation[] {
  return DEPRECATED_CONFIG_NAMES.filter(({ name }) => env[name] !== undefined && env[name] !== '').map(({ name, use, still }) => ({
    variable: name,
    replacement: use,
    message: `${name} is deprecated: set ${use} instead (read by both Paystack rails); until then ${name} still sets ${still}`,
  }));
}

/**
 * Logs each deprecated variable the environment sets, once: a service calls
 * it at start-up, beside its logger. Only names are logged, never a value.
 */
export function warnConfigDeprecations(logger: { warn: (obj: object, msg: string) => void }, env: Record<string, string | undefined> = process.env): void {
  for (const d of configDeprecations(env)) logger.warn({ variable: d.variable, replacement: d.replacement }, d.message);
}

/**
 * Live mode's money rails in production (CONFIG_RULES): payouts and
 * collections are all real, or all sandbox on a staging deployment that says
 * so (ALLOW_SANDBOX_IN_PRODUCTION=true). A mix would let sandbox collections
 * credit live wallets that pay out for real, so it is refused with or without
 * the flag.
 */
function moneyRailIssues(c: ParsedConfig): Array<{ variable: (typeof MONEY_RAILS)[number]; message: string }> {
  const sandboxRails = MONEY_RAILS.filter((rail) => c[rail] === 'sandbox');
  if (sandboxRails.length > 0 && sandboxRails.length < MONEY_RAILS.length) {
    const combination = MONEY_RAILS.map((rail) => `${rail}=${c[rail]}`).join(', ');
    return sandboxRails.map((variable) => ({
      variable,
      message: `is sandbox beside a real rail (${combination}): in production live mode's rails are all real, or all sandbox with ALLOW_SANDBOX_IN_PRODUCTION=true (a staging deployment); a mix lets sandbox money reach a real payout`,
    }));
  }
  if (c.ALLOW_SANDBOX_IN_PRODUCTION) return [];
  return sandboxRails.map((variable) => ({
    variable,
    message: 'is sandbox: live mode in production needs real rails, or ALLOW_SANDBOX_IN_PRODUCTION=true (a staging deployment)',
  }));
}

/**
 * The Paystack key each Paystack rail uses in production (CONFIG_RULES), checked
 * once per variable (one for both rails, unless payouts have a business of
 * their own): a live one (`sk_live_…`), since a test key moves no real money
 * and its notifications are not live; and the payout rail's is required.
 */
function paystackKeyIssues(c: ParsedConfig): Array<{ variable: PaystackSettings['keySetting']; message: string }> {
  const issues: Array<{ variable: PaystackSettings['keySetting']; message: string }> = [];
  const paystackKeys: Array<{ rail: string; settings: PaystackSettings }> = [];
  if (c.PAYOUT_RAILS.includes('paystack')) paystackKeys.push({ rail: 'PAYOUT_RAIL', settings: paystackPayoutSettings(c) });
  if (c.COLLECTION_RAIL === 'paystack') paystackKeys.push({ rail: 'COLLECTION_RAIL', settings: paystackCollectionSettings(c) });
  const checkedKeys = new Set<string>();
  for (const { rail, settings } of paystackKeys) {
    const { secretKey: value, keySetting: key } = settings;
    if (checkedKeys.has(key)) continue;
    checkedKeys.add(key);
    // PAYSTACK_SECRET_KEY is required with COLLECTION_RAIL=paystack in every environment (its own rule): said once.
    if (!value && rail === 'PAYOUT_RAIL' && !(key === 'PAYSTACK_SECRET_KEY' && c.COLLECTION_RAIL === 'paystack'))
      issues.push({
        variable: key,
        message: `is required in production when ${rail}=paystack (or PAYOUT_PAYSTACK_SECRET_KEY, for a separate Paystack business)`,
      });
    else if (value && !value.startsWith('sk_live_')) {
      // The value is a secret: only its kind is said.
      const kind = value.startsWith('sk_test_') ? 'a test key (sk_test_…)' : 'not a Paystack secret key';
      issues.push({ variable: key, message: `is ${kind}: with ${rail}=paystack in production it must be a live key (sk_live_…)` });
    }
  }
  return issues;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ZConfig.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration\n  ${lines.join('\n  ')}`);
  }
  const config = parsed.data;
  if (config.ENCRYPTION_KEY) rememberPreviousSealingKeys(config.ENCRYPTION_KEY, config.ENCRYPTION_KEY_PREVIOUS ? [config.ENCRYPTION_KEY_PREVIOUS] : []);
  return config;
}
