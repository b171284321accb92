import { Queue, type JobsOptions, type ConnectionOptions } from 'bullmq';
import type { z } from 'zod';
import type { Logger } from '../logger';
import { queueTelemetry } from './telemetry';

export interface JobSpec<S extends z.ZodType = z.ZodType, R = unknown> {
  schema: S;
  /** Per-job BullMQ options (retries, backoff); defaults come from the queue. */
  options?: JobsOptions;
  /** A type, never a value: what the job's handler returns, which BullMQ keeps as JSON for whoever waits on the job. */
  readonly result?: R;
}

/**
 * One job of a queue's catalog: its payload schema and, as a type, its result.
 * `jobOf<TResult>()(schema)`: the handler must return `TResult`, and a caller
 * waiting on the job (enqueueAndWait) receives it typed.
 */
export const jobOf =
  <R = void>() =>
  <S extends z.ZodType>(schema: S, options?: JobsOptions): JobSpec<S, R> =>
    options ? { schema, options } : { schema };

/** The result type declared for a job of a catalog. */
export type JobResult<J extends JobSpec> = J extends JobSpec<z.ZodType, infer R> ? R : never;

export interface QueueDefinition<J extends Record<string, JobSpec>> {
  name: string;
  jobs: J;
  defaultJobOptions: JobsOptions;
}

export type JobPayload<D extends QueueDefinition<Record<string, JobSpec>>, N extends keyof D['jobs']> = z.output<D['jobs'][N]['schema']>;

/** A queue's name, its closed catalog of job names with payload schemas, and defaults. */
export function defineQueue<const J extends Record<string, JobSpec>>(name: string, jobs: J, defaultJobOptions: JobsOptions = {}): QueueDefinition<J> {
  return { name, jobs, defaultJobOptions };
}

/** BullMQ forbids ':' in custom job ids and treats bare integers specially. */
export function jobIdFor(kind: string, ...ids: Array<string | number | bigint>): string {
  return [kind, ...ids.map(String)].join('-');
}

/**
 * The job id of a database record's job: its id, for people reading the
 * queue, and its random reference. Row ids start again on a new or restored
 * database while Redis keeps finished jobs (and BullMQ ignores an add whose id
 * it holds), so an id alone could name another database's finished job: the
 * new record's job would never run, and the caller waiting on it would get
 * the old job's result. The reference never repeats. The same record always
 * gets the same id, so a retried enqueue never makes a second job.
 */
export function recordJobId(kind: string, record: { id: number; reference: string }): string {
  return jobIdFor(kind, record.id, record.reference);
}

export interface QueueConnection {
  connection: ConnectionOptions;
  prefix: string;
  /** Where the queue's errors go (one warning per 10 s); without it they are dropped. */
  logger?: Pick<Logger, 'warn'>;
}

/** How often a queue's errors are logged while they repeat (a reconnecting connection's, say). */
const QUEUE_ERROR_LOG_EVERY_MS = 10_000;

/**
 * A producer's queue. Its errors get a listener: a queue repeats its
 * connection's error on every reconnect attempt while Redis is away, and
 * without a listener BullMQ prints each one with console.error.
 */
export function openQueue<J extends Record<string, JobSpec>>(def: QueueDefinition<J>, conn: QueueConnection): Queue {
  const telemetry = queueTelemetry();
  const queue = new Queue(def.name, {
    connection: conn.connection,
    prefix: conn.prefix,
    defaultJobOptions: def.defaultJobOptions,
    ...(telemetry && { telemetry }),
  });
  let loggedAt = -Infinity;
  queue.on('error', (err: Error) => {
    if (!conn.logger || Date.now() - loggedAt < QUEUE_ERROR_LOG_EVERY_MS) return;
    loggedAt = Date.now();
    conn.logger.warn({ queue: def.name, err: { message: err.message } }, 'queue error');
  });
  return queue;
}

/**
 * The job data field naming where a worker publishes the job's outcome (the
 * waiting process's reply channel, JobReplies). A handler never sees it: its
 * payload is parsed against the catalog's schema, which drops it.
 */
export const JOB_REPLY_FIELD = 'cowrieReplyTo';

/**
 * Adds a job after parsing its payload against the catalog; the id makes
 * re-adds no-ops. With `replyTo`, the worker publishes the job's outcome on
 * that channel (enqueueAndWait).
 */
export async function enqueue<J extends Record<string, JobSpec>, N extends keyof J & string>(
  queue: Queue,
  def: QueueDefinition<J>,
  jobName: N,
  payload: z.input<J[N]['schema']>,
  options: JobsOptions & { jobId: string },
  replyTo?: string,
) {
  const data = def.jobs[jobName]!.schema.parse(payload);
  return queue.add(jobName, replyTo ? { ...(data as object), [JOB_REPLY_FIELD]: replyTo } : data, { ...def.jobs[jobName]!.options, ...options });
}

/**
 * A worker's handler map, typed from the catalog so a missing handler, or one
 * returning another result than its job declares, does not compile; each
 * payload is parsed before its handler runs.
 */
export type HandlerMap<J extends Record<string, JobSpec>, Ctx> = {
  [N in keyof J]: (payload: z.output<J[N]['schema']>, ctx: Ctx) => Promise<JobResult<J[N]>>;
};

export function dispatchJob<J extends Record<string, JobSpec>, Ctx>(
  def: QueueDefinition<J>,
  handlers: HandlerMap<J, Ctx>,
  jobName: string,
  data: unknown,
  ctx: Ctx,
): Promise<unknown> {
  const spec = def.jobs[jobName];
  if (!spec) throw new Error(`queue ${def.name} has no job named ${jobName}`);
  const payload = spec.schema.parse(data);
  return handlers[jobName as keyof J](payload as never, ctx);
}
