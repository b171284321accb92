import type { Job, Worker } from 'bullmq';
import type { CowrieMetrics } from './metrics';

export interface InstrumentWorkerOptions {
  /** Called with each completed job's return value: where a service turns outcomes into domain metrics. */
  onCompleted?: (job: Job, result: unknown) => void;
}

const secondsOf = (job: Job) => (job.processedOn && job.finishedOn ? Math.max(0, job.finishedOn - job.processedOn) / 1000 : undefined);

/**
 * Job durations and failures of one BullMQ worker, from the worker's own
 * events, so neither the handlers nor the domain packages know about metrics.
 */
export function instrumentWorker(metrics: CowrieMetrics, worker: Worker, options: InstrumentWorkerOptions = {}): void {
  const queue = worker.name;
  worker.on('completed', (job, result) => {
    const seconds = secondsOf(job);
    if (seconds !== undefined) metrics.jobDuration.observe({ queue, job: job.name, outcome: 'completed' }, seconds);
    try {
      options.onCompleted?.(job, result);
    } catch {
      // A metric must never break the worker.
    }
  });
  worker.on('failed', (job) => {
    if (!job) return;
    const seconds = secondsOf(job);
    if (seconds !== undefined) metrics.jobDuration.observe({ queue, job: job.name, outcome: 'failed' }, seconds);
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    metrics.jobFailures.inc({ queue, job: job.name, final: String(final) });
  });
}

/** Reports one call to an external rail or provider. */
export type CallObserver = (operation: string, seconds: number, error?: unknown) => void;

/** A CallObserver that fills the rail families for `rail`. */
export function railObserver(metrics: CowrieMetrics, rail: string): CallObserver {
  return (operation, seconds, error) => {
    metrics.railCallDuration.observe({ rail, operation, outcome: error === undefined ? 'ok' : 'error' }, seconds);
    if (error !== undefined) metrics.railCallErrors.inc({ rail, operation, error: error instanceof Error ? error.name : 'unknown' });
  };
}

/**
 * The same object, with every method call timed and reported (promises when
 * they settle). Used by services to wrap a rail adapter or delivery provider
 * without the adapter knowing.
 */
export function instrumentCalls<T extends object>(target: T, observe: CallObserver, methods?: readonly (keyof T & string)[]): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string' || (methods && !methods.includes(prop as keyof T & string))) return value;
      return function (this: unknown, ...args: unknown[]) {
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(this === receiver ? obj : this, args);
        } catch (err) {
          observe(prop, seconds(), err ?? new Error('thrown'));
          throw err;
        }
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          return (result as Promise<unknown>).then(
            (v) => {
              observe(prop, seconds());
              return v;
            },
            (err: unknown) => {
              observe(prop, seconds(), err ?? new Error('rejected'));
              throw err;
            },
          );
        }
        observe(prop, seconds());
        return result;
      };
    },
  });
}
