import { isDependencyUnavailable, type Logger } from '@cowrie/core';

/**
 * What a service process does with a rejection nobody handled. One that is
 * only a lost Postgres or Redis connection is logged and the process carries
 * on: BullMQ leaves such rejections unhandled inside its own scripts when a
 * Redis Cluster master restarts (the chaos soak saw a gateway die of one), and
 * everything the process was doing is picked up again from Postgres and the
 * queues. Any other one is a bug: it is logged and ends the process, as Node
 * does by default, for the orchestrator to restart.
 */
export function handleUnhandledRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (isDependencyUnavailable(reason)) {
      logger.warn({ err: reason }, 'a lost Postgres/Redis connection was left unhandled by a library; carrying on');
      return;
    }
    logger.fatal({ err: reason }, 'unhandled rejection; exiting');
    process.exit(1);
  });
}
