import { createServiceLogger, loadConfig } from '@cowrie/core';
import { runService } from '@cowrie/service-kit';
import { startWebhookWorker } from './worker';

runService('webhook-sender', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'webhook-sender');
  const running = await startWebhookWorker(config, logger);
  return { service: running, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
