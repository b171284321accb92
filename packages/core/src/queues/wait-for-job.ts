import type { EventEmitter } from 'node:events';
import { Job, type JobsOptions, type Queue, type QueueEvents } from 'bullmq';
import type { z } from 'zod';
import { enqueue, type JobResult, type JobSpec, type QueueDefinition } from './define-queue';

/** What waiting for a job found: its result, its failure, or nothing yet. */
export type JobWait<R> = { kind: 'completed'; value: R } | { kind: 'failed'; reason: string } | { kind: 'timed_out' };

/** A wait for one job's outcome, listening since it was made (listenForJob). */
export interface JobListener<R> {
  /** The outcome, or `timed_out` when none came within `ttlMs` of this call. Never rejects. */
  outcome(ttlMs: number): Promise<JobWait<R>>;
  /** Stops listening (the add failed): `outcome` answers `timed_out`. */
  stop(): void;
}

/**
 * Listens for the outcome of job `jobId` on `queueEvents` from this moment.
 * Made before the job is added, it cannot miss an outcome announced before
 * the add's reply is read, so the usual path costs no Redis command beyond
 * the add. Only when the add found a job of that id already there (the queue
 * announces `duplicated`) is the job looked up, since that one may have
 * finished long ago.
 *
 * Not BullMQ's Job.waitUntilFinished: it checks whether the job already
 * finished with a Redis script inside an async Promise executor, so when
 * Redis is lost at that moment (a Cluster master restarting) the rejection
 * escapes as an unhandled rejection and ends the process (the chaos soak
 * found it killing a gateway). Here a failed look only means "not known yet":
 * the queue's events or the deadline decide, and the caller reads the truth
 * from Postgres.
 */
export function listenForJob<R>(queue: Queue, queueEvents: QueueEvents, jobId: string): JobListener<R> {
  // Per-job event names (`completed:<id>`) are outside BullMQ's typed listener map.
  const events = queueEvents as unknown as EventEmitter;
  let known: JobWait<R> | null = null;
  let answer: ((outcome: JobWait<R>) => void) | null = null;
  let timer: NodeJS.Timeout | undefined;
  const finish = (outcome: JobWait<R>) => {
    if (known) return;
    known = outcome;
    clearTimeout(timer);
    events.off(`completed:${jobId}`, onCompleted);
    events.off(`failed:${jobId}`, onFailed);
    events.off(`duplicated:${jobId}`, onDuplicated);
    answer?.(outcome);
  };
  const onCompleted = (args: { returnvalue: unknown }) => finish({ kind: 'completed', value: args.returnvalue as R });
  const onFailed = (args: { failedReason: string }) => finish({ kind: 'failed', reason: args.failedReason });
  const onDuplicated = () => {
    void (async () => {
      const current = await Job.fromId(queue, jobId);
      if (current?.finishedOn && (await current.isCompleted())) finish({ kind: 'completed', value: current.returnvalue as R });
      else if (current?.finishedOn && (await current.isFailed())) finish({ kind: 'failed', reason: current.failedReason });
    })().catch(() => undefined);
  };
  events.on(`completed:${jobId}`, onCompleted);
  events.on(`failed:${jobId}`, onFailed);
  events.on(`duplicated:${jobId}`, onDuplicated);
  return {
    outcome: (ttlMs) =>
      new Promise((resolve) => {
        if (known) return resolve(known);
        answer = resolve;
        timer = setTimeout(() => finish({ kind: 'timed_out' }), ttlMs);
      }),
    stop: () => finish({ kind: 'timed_out' }),
  };
}

/** Where a job is queued and where its outcome is announced. */
export interface JobChannel {
  queue: Queue;
  events: QueueEvents;
}

/**
 * What queueing a job and waiting for it found: the handler's result, its
 * failure, no outcome within the wait (the job is still queued or running), or
 * no job at all (Redis refused the add).
 */
export type JobRun<R> =
  { kind: 'completed'; value: R } | { kind: 'failed'; reason: string; job: Job } | { kind: 'unfinished'; job: Job } | { kind: 'not_queued'; error: Error };

/**
 * The gateway's "queue the work, wait a bounded time for the worker, else
 * answer from Postgres": adds the job (its payload parsed against the catalog)
 * and waits at most `waitMs` for its result, typed as the catalog declares it.
 * Never throws: each caller decides what a missing outcome means, and reads
 * the truth from Postgres, which the worker writes before it returns.
 */
export async function enqueueAndWait<J extends Record<string, JobSpec>, N extends keyof J & string>(
  channel: JobChannel,
  def: QueueDefinition<J>,
  jobName: N,
  payload: z.input<J[N]['schema']>,
  options: JobsOptions & { jobId: string; waitMs: number },
): Promise<JobRun<JobResult<J[N]>>> {
  const { waitMs, ...jobOptions } = options;
  // Listening before the add: an outcome announced before its reply is read is not missed.
  const listener = waitMs > 0 ? listenForJob<JobResult<J[N]>>(channel.queue, channel.events, options.jobId) : null;
  let job: Job;
  try {
    job = await enqueue(channel.queue, def, jobName, payload, jobOptions);
  } catch (err) {
    listener?.stop();
    return { kind: 'not_queued', error: err instanceof Error ? err : new Error(String(err)) };
  }
  if (!listener) return { kind: 'unfinished', job };
  const waited = await listener.outcome(waitMs);
  if (waited.kind === 'timed_out') return { kind: 'unfinished', job };
  return waited.kind === 'completed' ? waited : { ...waited, job };
}
