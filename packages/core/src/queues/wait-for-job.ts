import { randomUUID } from 'node:crypto';
import { Job, type JobsOptions, type Queue } from 'bullmq';
import type { z } from 'zod';
import type { RedisClient } from '../redis';
import { enqueue, JOB_REPLY_FIELD, type JobResult, type JobSpec, type QueueDefinition } from './define-queue';

/** What waiting for a job found: its result, its failure, or nothing yet. */
export type JobWait<R> = { kind: 'completed'; value: R } | { kind: 'failed'; reason: string } | { kind: 'timed_out' };

/** A wait for one job's outcome, listening since it was made (JobReplies.listen). */
export interface JobListener<R> {
  /** The outcome, or `timed_out` when none came within `ttlMs` of this call. Never rejects. */
  outcome(ttlMs: number): Promise<JobWait<R>>;
  /** Stops listening (the add failed): `outcome` answers `timed_out`. */
  stop(): void;
}

/** What a worker publishes on a job's reply channel once the job has finished (replyWithOutcome). */
type JobReply = { jobId: string; kind: 'completed'; value: unknown } | { jobId: string; kind: 'failed'; reason: string };

/**
 * Publishes a finished job's outcome on the reply channel its adder named
 * (JOB_REPLY_FIELD), if any: one PUBLISH, after BullMQ recorded the outcome
 * (call it from the worker's `completed` and `failed` events). A failure that
 * will be retried is not an outcome and is not published. Never throws: a
 * lost reply only makes the waiter look the job up (JobReplies).
 */
export function replyWithOutcome(
  publisher: RedisClient,
  job: Job | undefined,
  outcome: { kind: 'completed'; value: unknown } | { kind: 'failed'; reason: string },
): void {
  const to = (job?.data as Record<string, unknown> | undefined)?.[JOB_REPLY_FIELD];
  if (typeof to !== 'string' || !job?.id) return;
  if (outcome.kind === 'failed' && !job.finishedOn) return;
  let message: string;
  try {
    message = JSON.stringify({ jobId: job.id, ...outcome } satisfies JobReply);
  } catch {
    return;
  }
  publisher.publish(to, message).catch(() => undefined);
}

/** When a wait with no reply yet looks its job up in the queue (a lost reply, or a job id added before). */
export interface LookupSchedule {
  /** The first look, this long after listening began. */
  firstMs: number;
  /**
   * Then again this long after, each later interval twice the one before,
   * until the wait ends: a wait of 10 s looks 4 times, not 10, so when a
   * worker is down and every wait runs to its end, the lookups stay few.
   */
  everyMs: number;
}

const DEFAULT_LOOKUPS: LookupSchedule = { firstMs: 250, everyMs: 1000 };

/**
 * This process's reply channel: every job it adds to wait on names the
 * channel (JOB_REPLY_FIELD), and the worker publishes the job's outcome
 * there once it is recorded (replyWithOutcome). One subscription per process,
 * made once, so a wait costs no Redis command beyond the add, and no process
 * reads another's outcomes (BullMQ's QueueEvents has every waiting process
 * read every event of the queue).
 *
 * A wait registers before its add, so it cannot miss an outcome published
 * before the add's reply is read. A reply can still be lost (the subscription
 * reconnecting, or not made yet), and an add whose job id is already there
 * (a retried add, an earlier adder) names no new reply channel: so a wait
 * with no reply looks the job up (`lookups`, at growing intervals), and a finished job answers from
 * its record. A failed look only means "not known yet": the deadline decides,
 * and the caller reads the truth from Postgres.
 *
 * Not BullMQ's Job.waitUntilFinished: it checks whether the job already
 * finished with a Redis script inside an async Promise executor, so when
 * Redis is lost at that moment (a Cluster master restarting) the rejection
 * escapes as an unhandled rejection and ends the process (the chaos soak
 * found it killing a gateway).
 */
export interface JobReplies {
  /** The channel this process's jobs name. */
  readonly address: string;
  /** Listens for job `jobId` of `queue` from this moment; call before adding it. */
  listen<R>(queue: Queue, jobId: string): JobListener<R>;
  /** Unsubscribes; waits still open end at their deadlines. */
  close(): Promise<void>;
}

/**
 * Subscribes `subscriber` (a connection of its own: a subscribed connection
 * runs no other command) to a new reply channel under `prefix`, again after
 * every reconnect. Works on a single node, Sentinel and Cluster (classic
 * pub/sub reaches every node of a cluster).
 */
export function openJobReplies(subscriber: RedisClient, prefix: string, options: { lookups?: LookupSchedule } = {}): JobReplies {
  const address = `${prefix}:replies:${randomUUID()}`;
  const lookups = options.lookups ?? DEFAULT_LOOKUPS;
  const waiters = new Map<string, Set<(reply: JobReply) => void>>();
  const subscribe = () => void subscriber.subscribe(address).catch(() => undefined);
  // ioredis resubscribes after a reconnect, but only to channels it had subscribed: the first subscribe may fail.
  subscriber.on('ready', subscribe);
  subscribe();
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== address) return;
    let reply: JobReply;
    try {
      reply = JSON.parse(message) as JobReply;
    } catch {
      return;
    }
    const set = waiters.get(reply.jobId);
    if (set) for (const deliver of [...set]) deliver(reply);
  });

  function listen<R>(queue: Queue, jobId: string): JobListener<R> {
    let known: JobWait<R> | null = null;
    let answer: ((outcome: JobWait<R>) => void) | null = null;
    let deadline: NodeJS.Timeout | undefined;
    let lookupTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: JobWait<R>) => {
      if (known) return;
      known = outcome;
      clearTimeout(deadline);
      clearTimeout(lookupTimer);
      const set = waiters.get(jobId);
      set?.delete(onReply);
      if (set?.size === 0) waiters.delete(jobId);
      answer?.(outcome);
    };
    const onReply = (reply: JobReply) =>
      finish(reply.kind === 'completed' ? { kind: 'completed', value: reply.value as R } : { kind: 'failed', reason: reply.reason });
    const lookUp = async () => {
      const current = await Job.fromId(queue, jobId);
      if (current?.finishedOn && (await current.isCompleted())) finish({ kind: 'completed', value: current.returnvalue as R });
      else if (current?.finishedOn && (await current.isFailed())) finish({ kind: 'failed', reason: current.failedReason });
    };
    /** A look in `ms`, and the one after it `thenMs` later (doubling from there). */
    const scheduleLookup = (ms: number, thenMs: number) => {
      lookupTimer = setTimeout(() => {
        void lookUp()
          .catch(() => undefined)
          .finally(() => {
            if (!known) scheduleLookup(thenMs, thenMs * 2);
          });
      }, ms);
    };
    let set = waiters.get(jobId);
    if (!set) waiters.set(jobId, (set = new Set()));
    set.add(onReply);
    scheduleLookup(lookups.firstMs, lookups.everyMs);
    return {
      outcome: (ttlMs) =>
        new Promise((resolve) => {
          if (known) return resolve(known);
          answer = resolve;
          deadline = setTimeout(() => finish({ kind: 'timed_out' }), ttlMs);
        }),
      stop: () => finish({ kind: 'timed_out' }),
    };
  }

  return {
    address,
    listen,
    close: async () => {
      subscriber.off('ready', subscribe);
      await subscriber.unsubscribe(address).catch(() => undefined);
    },
  };
}

/** Where a job is queued and where its outcome comes back to. */
export interface JobChannel {
  queue: Queue;
  replies: JobReplies;
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
 * answer from Postgres": adds the job (its payload parsed against the catalog,
 * naming this process's reply channel) and waits at most `waitMs` for its
 * result, typed as the catalog declares it. Never throws: each caller decides
 * what a missing outcome means, and reads the truth from Postgres, which the
 * worker writes before it returns.
 */
export async function enqueueAndWait<J extends Record<string, JobSpec>, N extends keyof J & string>(
  channel: JobChannel,
  def: QueueDefinition<J>,
  jobName: N,
  payload: z.input<J[N]['schema']>,
  options: JobsOptions & { jobId: string; waitMs: number },
): Promise<JobRun<JobResult<J[N]>>> {
  const { waitMs, ...jobOptions } = options;
  // Listening before the add: an outcome published before its reply is read is not missed.
  const listener = waitMs > 0 ? channel.replies.listen<JobResult<J[N]>>(channel.queue, options.jobId) : null;
  let job: Job;
  try {
    job = await enqueue(channel.queue, def, jobName, payload, jobOptions, listener ? channel.replies.address : undefined);
  } catch (err) {
    listener?.stop();
    return { kind: 'not_queued', error: err instanceof Error ? err : new Error(String(err)) };
  }
  if (!listener) return { kind: 'unfinished', job };
  const waited = await listener.outcome(waitMs);
  if (waited.kind === 'timed_out') return { kind: 'unfinished', job };
  return waited.kind === 'completed' ? waited : { ...waited, job };
}
