import type { EventEmitter } from 'node:events';
import { Job, type Queue, type QueueEvents } from 'bullmq';

/** What waiting for a job found: its result, its failure, or nothing yet. */
export type TJobWait<R> = { finished: 'completed'; value: R } | { finished: 'failed'; reason: string } | { finished: false };

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
export function waitForJob<R>(queue: Queue, queueEvents: QueueEvents, job: Job, ttlMs: number): Promise<TJobWait<R>> {
  const id = job.id!;
  // Per-job event names (`completed:<id>`) are outside BullMQ's typed listener map.
  const events = queueEvents as unknown as EventEmitter;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: TJobWait<R>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      events.off(`completed:${id}`, onCompleted);
      events.off(`failed:${id}`, onFailed);
      resolve(outcome);
    };
    const onCompleted = (args: { returnvalue: unknown }) => finish({ finished: 'completed', value: args.returnvalue as R });
    const onFailed = (args: { failedReason: string }) => finish({ finished: 'failed', reason: args.failedReason });
    const timer = setTimeout(() => finish({ finished: false }), ttlMs);
    events.on(`completed:${id}`, onCompleted);
    events.on(`failed:${id}`, onFailed);
    // It may have finished before the listeners were on: look once, when the events are flowing.
    void (async () => {
      await queueEvents.waitUntilReady();
      const current = await Job.fromId(queue, id);
      if (current?.finishedOn && (await current.isCompleted())) finish({ finished: 'completed', value: current.returnvalue as R });
      else if (current?.finishedOn && (await current.isFailed())) finish({ finished: 'failed', reason: current.failedReason });
    })().catch(() => undefined);
  });
}
