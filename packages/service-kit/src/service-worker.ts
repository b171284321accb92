import type { Job, Queue, Worker } from 'bullmq';
import { createRedis, openQueue, type HandlerMap, type JobSpec, type Logger, type QueueDefinition, type Config, type RedisClient } from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient, type SqlPool } from '@cowrie/db';
import { instrumentWorker, type CowrieMetrics } from '@cowrie/metrics';
import { waitForDependencies } from './dependencies';
import type { RunningWorker } from './metrics-port';
import type { PollingLoop } from './polling-loop';
import { closeWorker, startQueueWorker, type StartQueueWorkerOptions } from './queue-worker';

/**
 * Whether a worker service opens its own queue (to add jobs and look them
 * up), and on which Redis connection: the one its BullMQ worker consumes on,
 * or one of its own (`<name>-producer`).
 */
export type ServiceQueue = 'none' | 'on_worker_connection' | 'on_own_connection';

type QueueOf<Q extends ServiceQueue> = Q extends 'none' ? undefined : Queue;

/**
 * What happens to jobs still running when SHUTDOWN_GRACE_MS has passed:
 * `hand_back` drops the worker's connections at once, so their locks lapse and
 * another worker takes them; `abort` aborts `graceOver` (with `reason`) and
 * gives them `unwindMs` more to return before they are handed back.
 */
export type PastGrace = { kind: 'hand_back' } | { kind: 'abort'; reason: string; unwindMs: number };

/** What startServiceWorker opened, for the service's own parts. */
export interface ServiceWorkerResources<Q extends ServiceQueue> {
  db: PrismaClient;
  /** Plain pg (see @cowrie/db `sql.ts`). */
  sql: SqlPool;
  /** For the service's own keys; BullMQ has connections of its own. */
  redis: RedisClient;
  queue: QueueOf<Q>;
  /** Aborted when the worker stops past its grace period (PastGrace `abort`); never otherwise. */
  graceOver: AbortSignal;
}

/** A worker service's own parts, made by its `wire` once the connections exist. */
export interface ServiceWorkerWiring<Ctx> {
  /** Passed to every handler, with the job's logger. */
  makeCtx: (job: Job, log: Logger) => Ctx;
  /** Runs once Postgres and Redis answer, before the worker consumes. */
  ready?: () => Promise<void>;
  /** Started once the worker consumes; stopped first on stop. */
  startLoops?: () => PollingLoop[];
  /** Closes its own parts once the worker and the queue are closed, before the connections. */
  close?: () => Promise<void>;
}

export interface ServiceWorkerSpec<J extends Record<string, JobSpec>, Ctx, Q extends ServiceQueue, W extends ServiceWorkerWiring<Ctx>> {
  /** The service; its Redis connections are named after it (`<name>`, `<name>-queue`, `<name>-producer`). */
  name: string;
  config: Config;
  logger: Logger;
  /** The queue's catalog and a handler for each of its jobs. */
  def: QueueDefinition<J>;
  handlers: HandlerMap<J, Ctx>;
  concurrency: number;
  workerOptions?: StartQueueWorkerOptions<J, Ctx>['workerOptions'];
  queue: Q;
  /** Jobs still running past SHUTDOWN_GRACE_MS; `hand_back` unless given. */
  pastGrace?: PastGrace;
  /** Job durations and failures, and the queue's depth when it opens one. */
  metrics?: CowrieMetrics;
  /** With metrics: turns a completed job's result into the service's own metrics. */
  outcomeMetrics?: (metrics: CowrieMetrics, job: Job, result: unknown) => void;
  /** Makes the service's own parts (rails, providers, stores) from what was opened; called once, before the worker starts. */
  wire: (resources: ServiceWorkerResources<Q>) => W;
}

export interface RunningServiceWorker<Q extends ServiceQueue, W> extends RunningWorker {
  worker: Worker;
  queue: QueueOf<Q>;
  /** What the service's `wire` returned. */
  wiring: W;
}

/**
 * The template every queue worker service runs: opens the Prisma client, the
 * pg pool, a Redis connection for the service's own keys, one for BullMQ (and
 * its queue when it has one), wires its own parts, consumes once Postgres and
 * Redis answer (startQueueWorker), then starts its loops.
 *
 * stop(): the loops stop first (nothing new is queued), then the worker closes
 * within SHUTDOWN_GRACE_MS (see PastGrace), then the queue, the service's own
 * parts, and the connections. Nothing is opened before it is called: checks of
 * the service's settings belong before the call.
 */
export async function startServiceWorker<J extends Record<string, JobSpec>, Ctx, Q extends ServiceQueue, W extends ServiceWorkerWiring<Ctx>>(
  spec: ServiceWorkerSpec<J, Ctx, Q, W>,
): Promise<RunningServiceWorker<Q, W>> {
  const { name, config, logger, metrics } = spec;
  const pastGrace = spec.pastGrace ?? { kind: 'hand_back' };
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger });
  const redis = createRedis(config, { name, logger });
  const connection = createRedis(config, { forBullmq: true, name: `${name}-queue`, logger });
  const producerConnection = spec.queue === 'on_own_connection' ? createRedis(config, { forBullmq: true, name: `${name}-producer`, logger }) : undefined;
  const queue = spec.queue === 'none' ? undefined : openQueue(spec.def, { connection: producerConnection ?? connection, prefix: config.QUEUE_PREFIX, logger });
  const graceOver = new AbortController();
  const wiring = spec.wire({ db, sql, redis, queue: queue as QueueOf<Q>, graceOver: graceOver.signal });
  const worker = await startQueueWorker<J, Ctx>({
    def: spec.def,
    handlers: spec.handlers,
    makeCtx: wiring.makeCtx,
    connection,
    prefix: config.QUEUE_PREFIX,
    concurrency: spec.concurrency,
    logger,
    ready: async () => {
      await waitForDependencies(db, redis, logger);
      await wiring.ready?.();
    },
    workerOptions: spec.workerOptions,
    replies: redis,
  });
  if (metrics) {
    const { outcomeMetrics } = spec;
    instrumentWorker(metrics, worker, outcomeMetrics ? { onCompleted: (job, result) => outcomeMetrics(metrics, job, result) } : {});
    if (queue) metrics.watchQueues([queue]);
  }
  const loops = wiring.startLoops?.() ?? [];
  return {
    worker,
    queue: queue as QueueOf<Q>,
    db,
    redis,
    wiring,
    stop: async () => {
      await Promise.all(loops.map((loop) => loop.stop()));
      if (pastGrace.kind === 'abort') {
        const abandon = setTimeout(() => graceOver.abort(new Error(pastGrace.reason)), config.SHUTDOWN_GRACE_MS);
        await closeWorker(worker, config.SHUTDOWN_GRACE_MS + pastGrace.unwindMs);
        clearTimeout(abandon);
      } else {
        await closeWorker(worker, config.SHUTDOWN_GRACE_MS);
      }
      await queue?.close().catch(() => undefined);
      await wiring.close?.();
      connection.disconnect();
      producerConnection?.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
    },
  };
}
