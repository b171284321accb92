import type { Queue } from 'bullmq';
import type { Logger, TConfig } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { relayOutbox, sweepPendingDeliveries } from '@cowrie/webhooks';

// The sweep only matters after a crash, so it runs far less often than the
// relay: twice per WEBHOOK_SWEEP_AFTER_MS, at most every 5 s.
const sweepEveryMs = (config: TConfig) => Math.min(5000, Math.max(50, Math.floor(config.WEBHOOK_SWEEP_AFTER_MS / 2)));

export interface RelayLoop {
  stop(): Promise<void>;
}

/**
 * Polls the outbox every WEBHOOK_RELAY_POLL_MS so events flow without anyone
 * queueing a wake-up, and sweeps pending deliveries that lost their job.
 * Several replicas may each run one: claims use SKIP LOCKED.
 */
export function startRelayLoop(opts: { db: PrismaClient; sql: SqlPool; queue: Queue; config: TConfig; logger: Logger }): RelayLoop {
  const log = opts.logger.child({ loop: 'outbox-relay' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let lastSweep = 0;

  const pass = async () => {
    try {
      const relayed = await relayOutbox({ sql: opts.sql, queue: opts.queue, batchSize: opts.config.WEBHOOK_RELAY_BATCH_SIZE });
      if (relayed.events) log.debug(relayed, 'outbox relayed');
      if (Date.now() - lastSweep >= sweepEveryMs(opts.config)) {
        lastSweep = Date.now();
        await sweepPendingDeliveries({ db: opts.db, queue: opts.queue, olderThanMs: opts.config.WEBHOOK_SWEEP_AFTER_MS, log });
      }
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'outbox relay pass failed; retrying at the next poll');
    }
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
  };

  function tick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        schedule(0);
      } else {
        schedule(opts.config.WEBHOOK_RELAY_POLL_MS);
      }
    });
  }

  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
