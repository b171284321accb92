import type { EventEmitter } from 'node:events';
import { Job, type JobsOptions, type Queue, type QueueEvents } from 'bullmq';
import type { z } from 'zod';
import { enqueue, type JobResult, type JobSpec, type QueueDefinition } from './define-queue';

/** What waiting for a job found: its result, its failure, or nothing yet. */
export type JobWait<R> = { kind: 'completed'; value: R } | { kind: 'failed'; reason: string } | { kind: 'timed_out' };

/**
 * Waits at most `ttlMs` for a job's outcome, and never throws.
 *
 * Not BullMQ's Job.waitUntilFinished: it checks whether the job already
 * finished with a Redis script inside an async Promise executor, so when
 * Redis is lost at that moment (a Cluster master restarting) the rejection
 * escapes as an unhandled rejection and ends the process (the chaos soak
 * found it killing a gateway). Here a failed check only means "not known
 * yet": the queue's events or the deadline decide, and the caller reads the
 * truth from Postgres.
 */
export function waitForJob<R>(queue: Queue, queueEvents: QueueEvents, job: Job, ttlMs: number): Promise<JobWait<R>> {
  const id = job.id!;
  // Per-job event names (`completed:<id>`) are outside BullMQ's typed listener map.
  const events = queueEvents as unknown as EventEmitter;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: JobWait<R>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      events.off(`completed:${id}`, onCompleted);
      events.off(`failed:${id}`, onFailed);
      resolve(outcome);
    };
    const onCompleted = (args: { returnvalue: unknown }) => finish({ kind: 'completed', value: args.returnvalue as R });
    const onFailed = (args: { failedReason: string }) => finish({ kind: 'failed', reason: args.failedReason });
    const timer = setTimeout(() => finish({ kind: 'timed_out' }), ttlMs);
    events.on(`completed:${id}`, onCompleted);
    events.on(`failed:${id}`, onFailed);
    // It may have finished before the listeners were on: look once, when the events are flowing.
    void (async () => {
      await queueEvents.waitUntilReady();
      const current = await Job.fromId(queue, id);
      if (current?.finishedOn && (await current.isCompleted())) finish({ kind: 'completed', value: current.returnvalue as R });
      else if (current?.finishedOn && (await current.isFailed())) finish({ kind: 'failed', reason: current.failedReason });
    })().catch(() => undefined);
  });
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
  let job: Job;
  try {
    job = await enqueue(channel.queue, def, jobName, payload, jobOptions);
  } catch (err) {
    return { kind: 'not_queued', error: err instanceof Error ? err : new Error(String(err)) };
  }
  if (waitMs <= 0) return { kind: 'unfinished', job };
  const waited = await waitForJob<JobResult<J[N]>>(channel.queue, channel.events, job, waitMs);
  if (waited.kind === 'timed_out') return { kind: 'unfinished', job };
  return waited.kind === 'completed' ? waited : { ...waited, job };
}
