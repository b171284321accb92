import { createServiceLogger, loadConfig } from '@cowrie/core';
import { createMetrics } from '@cowrie/metrics';
import { openMetricsPort, runService, stopWithMetricsPort } from '@cowrie/service-kit';
import { startVerificationWorker } from './worker';

runService('verification-dispatcher', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'verification-dispatcher');
  const metrics = createMetrics({ service: 'verification-dispatcher' });
  const running = await startVerificationWorker(config, logger, { metrics });
  const port = await openMetricsPort({ config, port: config.VERIFICATION_WORKER_METRICS_PORT, metrics, db: running.db, redis: running.redis, logger });
  return { service: { stop: () => stopWithMetricsPort(port, running.stop) }, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
