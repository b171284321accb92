import { createServiceLogger, loadConfig } from '@cowrie/core';
import { runService } from '@cowrie/service-kit';
import { startPayoutWorker } from './worker';

runService('payout-worker', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'payout-worker');
  const running = await startPayoutWorker(config, logger);
  return { service: running, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
