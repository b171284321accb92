// The soak's world: a stack (startStack of @cowrie/testing: its own database,
// its own Redis or Cluster, R replicas of the gateway and of each worker as
// processes it can kill and restart), the Paystack, Flutterwave and Termii
// stand-ins, and webhook receivers; its environment is the soak's.
import { randomBytes } from 'node:crypto';
import { startHttpReceiver, startStack, type HttpReceiver, type RedisServer, type StackReplica } from '@cowrie/testing';
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { startFlutterwaveStandIn, type FlutterwaveStandIn } from '@cowrie/rails/testing';
import { startTermiiStandIn, type TermiiStandIn } from '@cowrie/verification/testing';

const SERVICES = ['gateway', 'payout-worker', 'verification-dispatcher', 'webhook-sender'] as const;
export type Service = (typeof SERVICES)[number];

/** A replica of a service (the stack's): its process, the lines it printed, its crashes. */
export type ServiceReplica = StackReplica & { service: Service };

const IOREDIS_NOISE = /^\[ioredis\] Unhandled error event|^\s+at |^\s+(errno|code|syscall|address|port): |^\}$/;

/** How often the reconciler runs in the soak; the quiet period at the end is twice it. */
export const RECONCILE_EVERY_MS = 1000;

export type RedisMode = 'single' | 'cluster';

export interface World {
  databaseUrl: string;
  databaseName: string;
  /** The single server, or the cluster's masters: each can be killed and restarted with its data. */
  redisNodes: RedisServer[];
  /** The payout rail (Paystack transfers). */
  standIn: PaystackStandIn;
  /** The second payout rail (Flutterwave transfers) when the soak runs with `--rails paystack,flutterwave`. */
  flutterwave: FlutterwaveStandIn | null;
  /** PAYOUT_RAILS, in order. */
  payoutRails: string[];
  /** The collection rail (Paystack virtual accounts); its notifications are signed with `collectionSecret`. */
  collectionStandIn: PaystackStandIn;
  collectionSecret: string;
  /** Where SMS codes go (Termii). */
  termii: TermiiStandIn;
  /** Three receivers behind the stable endpoints, and a fourth behind the endpoints the driver churns. */
  receivers: HttpReceiver[];
  churnReceiver: HttpReceiver;
  replicas: ServiceReplica[];
  env: Record<string, string>;
  start(replica: ServiceReplica): void;
  /** SIGKILL; resolves when it is gone. */
  kill(replica: ServiceReplica): Promise<void>;
  /** Ends every process and server; drops the database unless `keepDatabase`. */
  close(opts: { keepDatabase: boolean }): Promise<void>;
}

export async function createWorld(opts: { seed: number; replicas: number; redis: RedisMode; rails: string[] }): Promise<World> {
  // Two Paystack stand-ins, as a deployment whose payouts are a separate Paystack business (PAYOUT_PAYSTACK_SECRET_KEY
  // beside PAYSTACK_SECRET_KEY), so the chaos can pause one rail's answers without the other's. The payout rail reaches
  // its own through the deprecated PAYOUT_PAYSTACK_BASE_URL and PAYOUT_PAYSTACK_TIMEOUT_MS, which still set it (and are
  // warned about once per process).
  const standIn = await startPaystackStandIn();
  const collectionSecret = `sk_test_soak_collections_${randomBytes(6).toString('hex')}`;
  const collectionStandIn = await startPaystackStandIn({ secret: collectionSecret });
  const flutterwave = opts.rails.includes('flutterwave') ? await startFlutterwaveStandIn({ hash: `soak-flw-${randomBytes(6).toString('hex')}` }) : null;
  const termii = await startTermiiStandIn();
  const receivers = await Promise.all([0, 1, 2].map(() => startHttpReceiver()));
  const churnReceiver = await startHttpReceiver();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    DATABASE_POOL_SIZE: '3',
    QUEUE_PREFIX: '{soak}',
    REDIS_KEY_PREFIX: 'soak:',
    PUBLIC_API_RATE_LIMIT: '1000000',
    VERIFY_RATE_DEST_LIMIT: '1000',
    VERIFY_RATE_BIZ_LIMIT: '1000000',
    PAYOUT_RAILS: opts.rails.join(','),
    ...(flutterwave
      ? {
          PAYOUT_FLUTTERWAVE_SECRET_KEY: flutterwave.secret,
          PAYOUT_FLUTTERWAVE_BASE_URL: flutterwave.url,
          PAYOUT_FLUTTERWAVE_TIMEOUT_MS: '800',
          PAYOUT_FLUTTERWAVE_WEBHOOK_HASH: flutterwave.hash,
          // A rail that failed on its own is passed over for seconds, not minutes, within a soak.
          PAYOUT_RAIL_COOLDOWN_MS: '2000',
          PAYOUT_RAIL_MAX_COOLDOWN_MS: '10000',
        }
      : {}),
    PAYOUT_PAYSTACK_SECRET_KEY: standIn.secret,
    PAYOUT_PAYSTACK_BASE_URL: standIn.url,
    PAYOUT_PAYSTACK_TIMEOUT_MS: '800',
    PAYOUT_SYNC_WAIT_MS: '1500',
    PAYOUT_RECONCILE_EVERY_MS: String(RECONCILE_EVERY_MS),
    PAYOUT_RECONCILE_AFTER_MS: '1500',
    PAYOUT_UNKNOWN_FIRST_CHECK_MS: '300',
    PAYOUT_UNKNOWN_MAX_CHECK_MS: '1000',
    PAYOUT_UNKNOWN_GRACE_MS: '4000',
    PAYOUT_JOB_LOCK_MS: '5000',
    // The reversal watch asks about a completed payout 1 s after it was sent, then 2, 4, 8 … s: a reversal whose
    // notification was lost is found within the soak.
    PAYOUT_REVERSAL_FIRST_CHECK_MS: '1000',
    PAYOUT_REVERSAL_WATCH_HOURS: '1',
    VERIFY_SYNC_WAIT_MS: '1000',
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: 'soak-termii-key',
    VERIFY_TERMII_BASE_URL: termii.url,
    VERIFY_PROVIDER_TIMEOUT_MS: '1500',
    COLLECTION_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: collectionSecret,
    PAYSTACK_BASE_URL: collectionStandIn.url,
    PAYSTACK_TIMEOUT_MS: '1500',
    WEBHOOK_TEST_RATE_LIMIT: '100000',
    DASHBOARD_RATE_LIMIT: '1000000',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RELAY_POLL_MS: '200',
    WEBHOOK_SWEEP_AFTER_MS: '5000',
    SHUTDOWN_GRACE_MS: '3000',
  };
  // Its own Redis with AOF (one server, or three masters joined as a Cluster), so it can be killed and restarted with its data.
  // A replica that exits on its own (a crash) is started again half a second later, as an orchestrator would.
  const stack = await startStack({
    name: `cowrie_soak_${opts.seed}`,
    redis: opts.redis === 'cluster' ? 'cluster' : 'own',
    services: SERVICES.map((service) => ({ service, replicas: opts.replicas, listens: service === 'gateway' })),
    env,
    notErrors: IOREDIS_NOISE,
    restartAfterMs: 500,
    closeWith: [standIn, ...(flutterwave ? [flutterwave] : []), collectionStandIn, termii, ...receivers, churnReceiver],
  });
  const replicas = stack.replicas as ServiceReplica[];

  // The payout rail's transfer.reversed notifications go to a gateway (when the chaos has it up; a lost one is found by the watch).
  const notifyGateway = stack.urls('gateway')[0];
  if (notifyGateway) standIn.options.notifyUrl = `${notifyGateway}/rails/paystack/notifications`;
  if (notifyGateway && flutterwave) flutterwave.options.notifyUrl = `${notifyGateway}/rails/flutterwave/notifications`;

  return {
    databaseUrl: stack.databaseUrl,
    databaseName: stack.databaseName,
    redisNodes: stack.redisNodes,
    standIn,
    flutterwave,
    payoutRails: opts.rails,
    collectionStandIn,
    collectionSecret,
    termii,
    receivers,
    churnReceiver,
    replicas,
    env: stack.env,
    start: stack.start,
    kill: stack.kill,
    // Every process SIGKILLed, as the chaos kills them.
    close: ({ keepDatabase }) => stack.close({ keepDatabase, graceMs: 0 }),
  };
}
