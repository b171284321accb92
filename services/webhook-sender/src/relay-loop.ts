import type { Queue } from 'bullmq';
import type { Logger, Config } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { pendingDeliverySweeper, relayOutbox } from '@cowrie/webhooks';
import { startPollingLoop, type PollingLoop } from '@cowrie/service-kit';

// The sweep only matters after a crash, so it runs far less often than the
// relay: twice per WEBHOOK_SWEEP_AFTER_MS, at most every 5 s.
const sweepEveryMs = (config: Config) => Math.min(5000, Math.max(50, Math.floor(config.WEBHOOK_SWEEP_AFTER_MS / 2)));

export type RelayLoop = PollingLoop;

/**
 * Polls the outbox every WEBHOOK_RELAY_POLL_MS so events flow without anyone
 * queueing a wake-up, and sweeps pending deliveries that lost their job.
 * Several replicas may each run one: claims use SKIP LOCKED.
 */
export function startRelayLoop(opts: { db: PrismaClient; sql: SqlPool; queue: Queue; config: Config; logger: Logger }): RelayLoop {
  let lastSweep = 0;
  const sweep = pendingDeliverySweeper({ db: opts.db, queue: opts.queue, olderThanMs: opts.config.WEBHOOK_SWEEP_AFTER_MS, log: opts.logger });
  return startPollingLoop({
    name: 'outbox-relay',
    everyMs: opts.config.WEBHOOK_RELAY_POLL_MS,
    logger: opts.logger,
    pass: async () => {
      const relayed = await relayOutbox({ sql: opts.sql, queue: opts.queue, batchSize: opts.config.WEBHOOK_RELAY_BATCH_SIZE });
      if (relayed.events) opts.logger.debug(relayed, 'outbox relayed');
      if (Date.now() - lastSweep >= sweepEveryMs(opts.config)) {
        lastSweep = Date.now();
        await sweep();
      }
    },
  });
}
