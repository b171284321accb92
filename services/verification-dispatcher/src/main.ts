import { createLogger, loadConfig } from '@cowrie/core';
import { runService } from '@cowrie/service-kit';
import { startVerificationWorker } from './worker';

runService('verification-dispatcher', async () => {
  const config = loadConfig();
  const logger = createLogger({ service: 'verification-dispatcher', level: config.LOG_LEVEL });
  const running = await startVerificationWorker(config, logger);
  return { service: running, logger, graceMs: config.SHUTDOWN_GRACE_MS };
});
