import { createServiceLogger, loadConfig } from '@cowrie/core';
import { createMetrics } from '@cowrie/metrics';
import { openMetricsPort, runService, stopWithMetricsPort } from '@cowrie/service-kit';
import { startPayoutWorker } from './worker';

runService('payout-worker', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'payout-worker');
  const metrics = createMetrics({ service: 'payout-worker' });
  const running = await startPayoutWorker(config, logger, { metrics });
  const port = await openMetricsPort({ config, port: config.PAYOUT_WORKER_METRICS_PORT, metrics, db: running.db, redis: running.redis, logger });
  return { service: { stop: () => stopWithMetricsPort(port, running.stop) }, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
