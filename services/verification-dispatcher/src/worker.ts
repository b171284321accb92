import type { Worker } from 'bullmq';
import { createServiceLogger, type Logger, type Config } from '@cowrie/core';
import { startServiceWorker, type RunningWorker } from '@cowrie/service-kit';
import { createDeliveryProviders, type DeliveryProvider, type DeliveryProviders, type VerificationDelivery, verificationsQueue } from '@cowrie/verification';
import { instrumentCalls, railObserver, type CowrieMetrics } from '@cowrie/metrics';
import { handlers } from './handlers';

export interface RunningVerificationWorker extends RunningWorker {
  worker: Worker;
  providers: DeliveryProviders;
}

/** What a caller may add to the dispatcher. */
export interface StartVerificationWorkerOptions {
  /** Job durations and failures, delivery outcomes, provider call latency and errors. */
  metrics?: CowrieMetrics;
}

/** The providers with every `send` timed per provider id. */
function instrumentProviders(providers: DeliveryProviders, metrics: CowrieMetrics): DeliveryProviders {
  const wrapped = new Map<DeliveryProvider, DeliveryProvider>();
  return {
    forChannel(channel, mode) {
      const provider = providers.forChannel(channel, mode);
      let w = wrapped.get(provider);
      if (!w) wrapped.set(provider, (w = instrumentCalls(provider, railObserver(metrics, `verification:${provider.id}`), ['send'])));
      return w;
    },
    close: () => providers.close(),
  };
}

/** Starts the verification-dispatcher: connects, waits for Postgres and Redis, then consumes the `verifications` queue (`verificationsQueue`). */
export async function startVerificationWorker(
  config: Config,
  logger: Logger = createServiceLogger(config, 'verification-dispatcher'),
  options: StartVerificationWorkerOptions = {},
): Promise<RunningVerificationWorker> {
  const { metrics } = options;
  const { worker, db, redis, stop, wiring } = await startServiceWorker({
    name: 'verification-dispatcher',
    config,
    logger,
    metrics,
    outcomeMetrics: (metrics, job, result) => {
      // The job's result is its VerificationDelivery (handlers.ts); typed here so a renamed tag does not compile.
      const outcome = (result as VerificationDelivery | null)?.kind;
      if (job.name === 'verification.deliver' && typeof outcome === 'string') metrics.verificationOutcomes.inc({ stage: 'delivery', outcome });
    },
    def: verificationsQueue,
    handlers,
    concurrency: config.VERIFICATION_WORKER_CONCURRENCY,
    workerOptions: { lockDuration: config.VERIFY_JOB_LOCK_MS, stalledInterval: config.VERIFY_JOB_LOCK_MS },
    queue: 'none',
    wire: ({ sql, redis }) => {
      // Built once per process: the SMTP transport and HTTP client are reused across jobs.
      const raw = createDeliveryProviders(config, redis);
      const providers = metrics ? instrumentProviders(raw, metrics) : raw;
      return { providers, makeCtx: (job, log) => ({ config, sql, redis, providers, log, job }), close: () => providers.close() };
    },
  });
  return { worker, db, redis, providers: wiring.providers, stop };
}
