import { createServiceLogger, loadConfig } from '@cowrie/core';
import { createMetrics } from '@cowrie/metrics';
import { openMetricsPort, runService, stopWithMetricsPort } from '@cowrie/service-kit';
import { startWebhookWorker } from './worker';

runService('webhook-sender', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'webhook-sender');
  const metrics = createMetrics({ service: 'webhook-sender' });
  const running = await startWebhookWorker(config, logger, { metrics });
  const port = await openMetricsPort({ config, port: config.WEBHOOK_WORKER_METRICS_PORT, metrics, db: running.db, redis: running.redis, logger });
  return { service: { stop: () => stopWithMetricsPort(port, running.stop) }, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
