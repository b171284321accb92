import { createServiceLogger, loadConfig, warnConfigDeprecations, type Logger, type Config, type RedisClient } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { createMetrics, startMetricsServer, type CowrieMetrics, type MetricsServer } from '@cowrie/metrics';
import { runService } from './run-service';

export interface MetricsPortOptions {
  config: Pick<Config, 'METRICS_HOST' | 'METRICS_TOKEN'>;
  /** The worker's *_METRICS_PORT; undefined means no port. */
  port: number | undefined;
  metrics: CowrieMetrics;
  /** What /readyz checks. */
  db: PrismaClient;
  redis: RedisClient;
  logger: Logger;
}

/**
 * A worker's metrics port (/metrics, /healthz, /readyz), when configured.
 * /metrics asks for METRICS_TOKEN when it is set.
 */
export async function openMetricsPort(opts: MetricsPortOptions): Promise<MetricsServer | undefined> {
  if (opts.port === undefined) return undefined;
  const server = await startMetricsServer({
    metrics: opts.metrics,
    port: opts.port,
    host: opts.config.METRICS_HOST,
    token: opts.config.METRICS_TOKEN,
    ready: async () => {
      await Promise.all([opts.db.$queryRaw`SELECT 1`, opts.redis.ping()]);
      return true;
    },
  });
  opts.logger.info({ url: server.url }, 'metrics port listening');
  return server;
}

/** Stops a worker behind its metrics port: /readyz fails first, the port closes last. */
export async function stopWithMetricsPort(port: MetricsServer | undefined, stop: () => Promise<void>): Promise<void> {
  port?.draining();
  try {
    await stop();
  } finally {
    await port?.close();
  }
}

/** What a worker's start function gives back: its connections (for /readyz) and how to stop it. */
export interface RunningWorker {
  db: PrismaClient;
  redis: RedisClient;
  stop: () => Promise<void>;
}

/**
 * A worker service's `main`: loads the config, makes its logger and metrics,
 * starts it, opens its metrics port when `metricsPort(config)` names one, and
 * runs it until a signal (`runService`), closing /readyz first on the way out.
 */
export function runWorkerService(
  name: string,
  start: (config: Config, logger: Logger, options: { metrics: CowrieMetrics }) => Promise<RunningWorker>,
  metricsPort: (config: Config) => number | undefined,
) {
  runService(name, async () => {
    const config = loadConfig();
    const logger = createServiceLogger(config, name);
    warnConfigDeprecations(logger);
    const metrics = createMetrics({ service: name });
    const running = await start(config, logger, { metrics });
    const port = await openMetricsPort({ config, port: metricsPort(config), metrics, db: running.db, redis: running.redis, logger });
    return { service: { stop: () => stopWithMetricsPort(port, running.stop) }, logger, graceMs: config.SHUTDOWN_GRACE_MS };
  });
}
