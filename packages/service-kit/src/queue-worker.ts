import { Worker, type Job, type WorkerOptions } from 'bullmq';
import { dispatchJob, type HandlerMap, type JobSpec, type Logger, type QueueDefinition, type TRedis } from '@cowrie/core';

export interface StartQueueWorkerOptions<J extends Record<string, JobSpec>, Ctx> {
  def: QueueDefinition<J>;
  handlers: HandlerMap<J, Ctx>;
  /** Passed to every handler with the job's logger merged in by makeCtx. */
  makeCtx: (job: Job, log: Logger) => Ctx;
  connection: TRedis;
  prefix: string;
  concurrency: number;
  logger: Logger;
  /** Resolves once the worker's dependencies answer; the worker starts consuming after it. */
  ready?: () => Promise<void>;
  /** Further BullMQ worker options (lock duration, stalled-job checks). */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
}

/**
 * A BullMQ worker for one queue. It starts paused (autorun off) and consumes
 * only once its dependencies answer; each payload is parsed against the
 * queue's catalog before its handler runs.
 */
export async function startQueueWorker<J extends Record<string, JobSpec>, Ctx>(
  opts: StartQueueWorkerOptions<J, Ctx>,
): Promise<Worker> {
  const log = opts.logger.child({ queue: opts.def.name });
  const worker = new Worker(
    opts.def.name,
    async (job) => {
      const jobLog = log.child({ jobId: job.id, job: job.name });
      const started = Date.now();
      try {
        const result = await dispatchJob(opts.def, opts.handlers, job.name, job.data, opts.makeCtx(job, jobLog));
        jobLog.debug({ ms: Date.now() - started }, 'job done');
        return result;
      } catch (err) {
        jobLog.warn({ err: { message: (err as Error).message }, ms: Date.now() - started }, 'job failed');
        throw err;
      }
    },
    { ...opts.workerOptions, connection: opts.connection, prefix: opts.prefix, concurrency: opts.concurrency, autorun: false },
  );
  worker.on('error', (err) => log.error({ err: { message: err.message } }, 'worker error'));
  if (opts.ready) await opts.ready();
  void worker.run().catch((err) => log.error({ err: { message: (err as Error).message } }, 'worker stopped'));
  log.info({ concurrency: opts.concurrency }, 'worker consuming');
  return worker;
}

/**
 * Closes a worker within `graceMs`: in-flight jobs finish, or, past the bound,
 * are handed back (BullMQ's stalled-job check gives them to another worker).
 */
export async function closeWorker(worker: Worker, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = worker.close();
  const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), graceMs); });
  const outcome = await Promise.race([graceful.then(() => 'closed' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') await worker.close(true);
}
