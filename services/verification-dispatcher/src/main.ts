import { createServiceLogger, loadConfig } from '@cowrie/core';
import { runService } from '@cowrie/service-kit';
import { startVerificationWorker } from './worker';

runService('verification-dispatcher', async () => {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'verification-dispatcher');
  const running = await startVerificationWorker(config, logger);
  return { service: running, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
