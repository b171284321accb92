// The `queue_floor` scenario's worker: the services' worker template
// (startQueueWorker, replies on) with a handler that does nothing, at the
// payout worker's default concurrency.
import { createLogger, createRedis } from '@cowrie/core';
import { startQueueWorker } from '@cowrie/service-kit';
import { floorQueue, floorConfig } from './queue';

const config = floorConfig();
void startQueueWorker({
  def: floorQueue,
  handlers: { 'floor.hop': async () => ({ done: true as const }) },
  makeCtx: () => ({}),
  connection: createRedis(config, { forBullmq: true }),
  replies: createRedis(config),
  prefix: config.QUEUE_PREFIX,
  concurrency: 16,
  logger: createLogger({ service: 'queue-floor-worker', level: 'warn' }),
});

// Stopped with SIGTERM: exit normally, so a CPU profile (BENCH_CPU_PROF) is written.
process.on('SIGTERM', () => process.exit(0));
