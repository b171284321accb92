import {
  createServiceLogger,
  createRedis,
  openJobReplies,
  openQueue,
  type JobChannel,
  type Logger,
  type Config,
  type Mode,
  type RedisClient,
} from '@cowrie/core';
import { payoutsQueue } from '@cowrie/payouts';
import { createEmailSender, verificationsQueue, type EmailSender } from '@cowrie/verification';
import { webhooksQueue } from '@cowrie/webhooks';
import { createDb, createSqlPool, type PrismaClient, type SqlPool } from '@cowrie/db';
import { loadChannelCatalog, type Channel } from '@cowrie/catalog';
import { createMetrics, instrumentCalls, primePayoutRailCounters, railObserver, type CowrieMetrics } from '@cowrie/metrics';
import { createModeRails, mapModeRails, type ModeRails } from '@cowrie/rails';
import { createCollectionRail, type CollectionRail } from '@cowrie/collection-rails';
import { BackgroundTasks } from './http/background';

/** Each queue the gateway adds jobs to, with where its jobs' outcomes come back (one reply channel for all). */
export interface GatewayQueues {
  payouts: JobChannel;
  verifications: JobChannel;
  webhooks: JobChannel;
}

/** Everything the gateway's routes use, built once in main (or by a test). */
export interface GatewayDeps {
  config: Config;
  logger: Logger;
  db: PrismaClient;
  /** Cowrie's own keys (rate limits, caches). */
  redis: RedisClient;
  queues: GatewayQueues;
  channels: Channel[];
  /** Plain pg for the hot paths (API key lookup, payout open and answer, verification start and check). */
  sql: SqlPool;
  /** Connections to quit on close. */
  connections: RedisClient[];
  /** The gateway's Prometheus families (GET /metrics). */
  metrics: CowrieMetrics;
  /** The dashboard's own emails (password resets, invitations): live mode's email provider. */
  email: EmailSender;
  /** Work started after answering (a reset's email); closing waits for it. */
  background: BackgroundTasks;
  /** The payout rails of each mode (a test key or session reaches the sandbox only), each call timed (cowrie_rail_call_*). */
  payoutRails: ModeRails;
  /** The collection rail of each mode (a test key opens accounts on the sandbox only), its account openings timed. */
  collectionRails: Record<Mode, CollectionRail>;
}

export interface GatewayDepsOptions {
  /** Process metrics (CPU, memory, event loop) on /metrics; main turns them on, tests leave them off. */
  processMetrics?: boolean;
}

export function createGatewayDeps(config: Config, logger = createServiceLogger(config, 'gateway'), options: GatewayDepsOptions = {}): GatewayDeps {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'gateway', logger });
  const queueConn = { connection: createRedis(config, { forBullmq: true, name: 'gateway-queues', logger }), prefix: config.QUEUE_PREFIX, logger };
  const connections: RedisClient[] = [redis, queueConn.connection];
  // Where the workers publish the outcomes of this process's jobs: one subscription, made once (openJobReplies).
  const repliesConnection = createRedis(config, { name: 'gateway-replies', logger });
  connections.push(repliesConnection);
  const replies = openJobReplies(repliesConnection, config.QUEUE_PREFIX);
  const channel = (def: Parameters<typeof openQueue>[0]): JobChannel => ({ queue: openQueue(def, queueConn), replies });
  const queues: GatewayQueues = { payouts: channel(payoutsQueue), verifications: channel(verificationsQueue), webhooks: channel(webhooksQueue) };
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const metrics = createMetrics({ service: 'gateway', processMetrics: options.processMetrics ?? false });
  // Rail notifications count late answers here (the payout worker primes its own).
  primePayoutRailCounters(metrics, config.PAYOUT_RAILS);
  metrics.watchQueues(Object.values(queues).map((c) => c.queue));
  const email = createEmailSender(config, redis);
  const background = new BackgroundTasks(logger);
  // Every rail call is timed, by the service, not the rail.
  const payoutRails = mapModeRails(createModeRails(config, { redis, sql }), (rail) => instrumentCalls(rail, railObserver(metrics, `payout:${rail.id}`)));
  const collectionRailOf = (mode: Mode) => {
    const raw = createCollectionRail(config, mode);
    return instrumentCalls(raw, railObserver(metrics, `collection:${raw.name}`), ['openOneOffAccount', 'openReservedAccount']);
  };
  const collectionRails = { live: collectionRailOf('live'), test: collectionRailOf('test') };
  return {
    config,
    logger,
    db,
    redis,
    queues,
    channels: loadChannelCatalog(config),
    sql,
    connections,
    metrics,
    email,
    background,
    payoutRails,
    collectionRails,
  };
}

export async function closeGatewayDeps(deps: GatewayDeps): Promise<void> {
  await deps.background.idle();
  await deps.email.close?.();
  const channels = Object.values(deps.queues);
  await Promise.allSettled([...new Set(channels.map((c) => c.replies))].map((r) => r.close()));
  await Promise.allSettled(channels.map((c) => c.queue.close()));
  for (const c of deps.connections) c.disconnect();
  await Promise.allSettled([deps.db.$disconnect(), deps.sql.end()]);
}
