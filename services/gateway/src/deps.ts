import { QueueEvents, type Queue } from 'bullmq';
import {
  createServiceLogger,
  createRedis,
  openQueue,
  payoutsQueue,
  verificationsQueue,
  webhooksQueue,
  type Logger,
  type TConfig,
  type TRedis,
} from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient, type SqlPool } from '@cowrie/db';
import { loadChannelCatalog, type TChannel } from '@cowrie/catalog';
import { createMetrics, type CowrieMetrics } from '@cowrie/metrics';

export interface GatewayQueues {
  payouts: Queue;
  verifications: Queue;
  webhooks: Queue;
  payoutEvents: QueueEvents;
  verificationEvents: QueueEvents;
  webhookEvents: QueueEvents;
}

/** Everything the gateway's routes use, built once in main (or by a test). */
export interface GatewayDeps {
  config: TConfig;
  logger: Logger;
  db: PrismaClient;
  /** Cowrie's own keys (rate limits, caches). */
  redis: TRedis;
  queues: GatewayQueues;
  channels: TChannel[];
  /** Plain pg for the hot paths (API key lookup, payout open and answer, verification start and check). */
  sql: SqlPool;
  /** Connections to quit on close. */
  connections: TRedis[];
  /** The gateway's Prometheus families (GET /metrics). */
  metrics: CowrieMetrics;
}

export interface GatewayDepsOptions {
  /** Process metrics (CPU, memory, event loop) on /metrics; main turns them on, tests leave them off. */
  processMetrics?: boolean;
}

export function createGatewayDeps(config: TConfig, logger = createServiceLogger(config, 'gateway'), options: GatewayDepsOptions = {}): GatewayDeps {
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = createRedis(config, { name: 'gateway', logger });
  const queueConn = { connection: createRedis(config, { forBullmq: true, name: 'gateway-queues', logger }), prefix: config.QUEUE_PREFIX };
  const connections: TRedis[] = [redis, queueConn.connection];
  const events = (name: string) => {
    const connection = createRedis(config, { forBullmq: true, name: `gateway-events-${name}`, logger });
    connections.push(connection);
    const queueEvents = new QueueEvents(name, { connection, prefix: config.QUEUE_PREFIX });
    // Every request waiting on a job (waitForJob) listens here; many wait at once.
    queueEvents.setMaxListeners(0);
    return queueEvents;
  };
  const queues: GatewayQueues = {
    payouts: openQueue(payoutsQueue, queueConn),
    verifications: openQueue(verificationsQueue, queueConn),
    webhooks: openQueue(webhooksQueue, queueConn),
    payoutEvents: events(payoutsQueue.name),
    verificationEvents: events(verificationsQueue.name),
    webhookEvents: events(webhooksQueue.name),
  };
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const metrics = createMetrics({ service: 'gateway', processMetrics: options.processMetrics ?? false });
  metrics.watchQueues([queues.payouts, queues.verifications, queues.webhooks]);
  return { config, logger, db, redis, queues, channels: loadChannelCatalog(config), sql, connections, metrics };
}

export async function closeGatewayDeps(deps: GatewayDeps): Promise<void> {
  const q = deps.queues;
  await Promise.allSettled([q.payoutEvents.close(), q.verificationEvents.close(), q.webhookEvents.close()]);
  await Promise.allSettled([q.payouts.close(), q.verifications.close(), q.webhooks.close()]);
  // disconnect, not quit: a QueueEvents connection may sit in a blocking read.
  for (const c of deps.connections) c.disconnect();
  await Promise.allSettled([deps.db.$disconnect(), deps.sql.end()]);
}
