import type { Logger, TConfig, TRedis } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { startMetricsServer, type CowrieMetrics, type MetricsServer } from '@cowrie/metrics';

export interface MetricsPortOptions {
  config: Pick<TConfig, 'METRICS_HOST' | 'METRICS_TOKEN'>;
  /** The worker's *_METRICS_PORT; undefined means no port. */
  port: number | undefined;
  metrics: CowrieMetrics;
  /** What /readyz checks. */
  db: PrismaClient;
  redis: TRedis;
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
