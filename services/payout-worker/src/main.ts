import { createLogger, loadConfig } from '@cowrie/core';
import { runService } from '@cowrie/service-kit';
import { startPayoutWorker } from './worker';

runService('payout-worker', async () => {
  const config = loadConfig();
  const logger = createLogger({ service: 'payout-worker', level: config.LOG_LEVEL });
  const running = await startPayoutWorker(config, logger);
  return { service: running, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
