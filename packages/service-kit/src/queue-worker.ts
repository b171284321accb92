import { DelayedError, WaitingChildrenError, WaitingError, Worker, type Job, type WorkerOptions } from 'bullmq';
import {
  dispatchJob,
  queueTelemetry,
  replyWithOutcome,
  type HandlerMap,
  type JobSpec,
  type Logger,
  type QueueDefinition,
  type RedisClient,
} from '@cowrie/core';

export interface StartQueueWorkerOptions<J extends Record<string, JobSpec>, Ctx> {
  def: QueueDefinition<J>;
  handlers: HandlerMap<J, Ctx>;
  /** Passed to every handler with the job's logger merged in by makeCtx. */
  makeCtx: (job: Job, log: Logger) => Ctx;
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  logger: Logger;
  /** Resolves once the worker's dependencies answer; the worker starts consuming after it. */
  ready?: () => Promise<void>;
  /**
   * Publishes each finished job's outcome on the reply channel its adder
   * named (enqueueAndWait's wait); a connection that runs commands, not the
   * blocking one BullMQ consumes on.
   */
  replies?: RedisClient;
  /** Further BullMQ worker options (lock duration, stalled-job checks). */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
}

/**
 * A handler that moved its job back to the delayed or waiting set itself (its
 * work cannot be done yet) ends with one of BullMQ's errors for it: the job
 * did not fail, and BullMQ neither records nor reports it as failed.
 */
const putBack = (err: unknown) => err instanceof DelayedError || err instanceof WaitingError || err instanceof WaitingChildrenError;

/** Workers that handed their running jobs back (closeWorker past its grace period). */
const handedBack = new WeakSet<Worker>();

/**
 * A handler that ends after its worker handed its job back must not report:
 * its connections are gone, and BullMQ, while closing, retries recording the
 * outcome on a lost connection with no pause at all, a loop that starves the
 * event loop and with it the rest of the shutdown. The job is another
 * worker's now (handlers are safe to run twice); this one waits for the exit.
 */
async function stayIfHandedBack(worker: Worker, log: Logger): Promise<void> {
  if (!handedBack.has(worker)) return;
  log.warn('job ended after it was handed back; its outcome is left to the worker that takes it up');
  await new Promise<never>(() => undefined);
}

/**
 * A BullMQ worker for one queue. It starts paused (autorun off) and consumes
 * only once its dependencies answer; each payload is parsed against the
 * queue's catalog before its handler runs.
 */
export async function startQueueWorker<J extends Record<string, JobSpec>, Ctx>(opts: StartQueueWorkerOptions<J, Ctx>): Promise<Worker> {
  const log = opts.logger.child({ queue: opts.def.name });
  const telemetry = queueTelemetry();
  const worker = new Worker(
    opts.def.name,
    async (job) => {
      const jobLog = log.child({ jobId: job.id, job: job.name });
      const started = Date.now();
      try {
        const result = await dispatchJob(opts.def, opts.handlers, job.name, job.data, opts.makeCtx(job, jobLog));
        jobLog.debug({ ms: Date.now() - started }, 'job done');
        await stayIfHandedBack(worker, jobLog);
        return result;
      } catch (err) {
        if (putBack(err)) jobLog.debug({ ms: Date.now() - started }, 'job put back for later');
        else jobLog.warn({ err: { message: (err as Error).message }, ms: Date.now() - started }, 'job failed');
        await stayIfHandedBack(worker, jobLog);
        throw err;
      }
    },
    {
      ...opts.workerOptions,
      connection: opts.connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency,
      autorun: false,
      // Each job's span continues the trace of whoever added it (tracing on only).
      ...(telemetry && { telemetry }),
    },
  );
  worker.on('error', (err) => log.error({ err: { message: err.message } }, 'worker error'));
  const { replies } = opts;
  if (replies) {
    // BullMQ emits these once the outcome is recorded: a waiter that looks the job up finds it finished.
    worker.on('completed', (job, value) => replyWithOutcome(replies, job, { kind: 'completed', value }));
    worker.on('failed', (job, err) => replyWithOutcome(replies, job, { kind: 'failed', reason: job?.failedReason ?? err.message }));
  }
  if (opts.ready) await opts.ready();
  void worker.run().catch((err) => log.error({ err: { message: (err as Error).message } }, 'worker stopped'));
  log.info({ concurrency: opts.concurrency }, 'worker consuming');
  return worker;
}

/**
 * Closes a worker within `graceMs`: in-flight jobs finish, or, past the bound,
 * are handed back: the worker's connections are dropped so their locks stop
 * being renewed, and BullMQ's stalled-job check gives them to another worker.
 * (BullMQ's own `close(true)` returns the graceful close already under way.)
 */
export async function closeWorker(worker: Worker, graceMs: number): Promise<'closed' | 'handed_back'> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = worker.close().then(() => 'closed' as const);
  const timedOut = new Promise<'handed_back'>((resolve) => {
    timer = setTimeout(() => resolve('handed_back'), graceMs);
  });
  const outcome = await Promise.race([graceful, timedOut]);
  clearTimeout(timer);
  if (outcome === 'handed_back') {
    handedBack.add(worker);
    graceful.catch(() => undefined);
    await Promise.race([worker.disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
  return outcome;
}
