// Risk: the gateway's "queue, wait a bounded time, else read Postgres"
// (enqueueAndWait) throwing instead of saying what it found, or a payload
// outside the catalog reaching the queue. And: a request waiting for a job's
// outcome missing it (the reply published before the add's answer, a job id
// added before, a reply lost while the subscription reconnects, a Cluster),
// or ending the process when Redis goes away at that moment (BullMQ's
// waitUntilFinished checks the job in an async Promise executor, whose
// rejection nobody handles: on a Cluster whose master restarts it ended a
// gateway in the chaos soak). On a Cluster BullMQ's own scripts leave such
// rejections too, which Jest fails any test on: handleUnhandledRejections
// (its own test) covers those.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, type Worker } from 'bullmq';
import { Redis, Cluster } from 'ioredis';
import { z } from 'zod';
import {
  createLogger,
  defineQueue,
  enqueue,
  enqueueAndWait,
  jobOf,
  openJobReplies,
  type JobReplies,
  type LookupSchedule,
  type RedisClient,
} from '@cowrie/core';
import { startRedisCluster, startRedisServer, type RedisServer } from '@cowrie/testing';
import { closeWorker, startQueueWorker } from '../src';

let redis: RedisServer;
const closers: Array<() => Promise<unknown>> = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const logger = createLogger({ service: 'wait-for-job-test', level: 'silent' });

beforeAll(async () => {
  redis = await startRedisServer();
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await redis.stop();
});

const connect = (opts: { blocking?: boolean } = {}): RedisClient => {
  const c = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: opts.blocking ? null : 3, retryStrategy: () => 200 });
  c.on('error', () => undefined);
  closers.push(async () => c.disconnect());
  return c;
};

/** Never looks a job up within a test's time: an outcome that arrives came by its reply. */
const REPLIES_ONLY: LookupSchedule = { firstMs: 60_000, everyMs: 60_000 };

function openReplies(subscriber: RedisClient, lookups?: LookupSchedule): JobReplies {
  const replies = openJobReplies(subscriber, '{wait-test}', lookups ? { lookups } : {});
  closers.push(() => replies.close());
  return replies;
}

const doubling = defineQueue('wait-run', {
  double: jobOf<{ answer: number; keys: string[] }>()(z.object({ n: z.number().int(), fail: z.boolean().optional(), sleepMs: z.number().optional() })),
});

function openQueue(name: string, connection: RedisClient, prefix = 'bull'): Queue {
  const queue = new Queue(name, { connection, prefix });
  queue.on('error', () => undefined);
  closers.push(() => queue.close());
  return queue;
}

/** A worker of the service template, publishing each outcome on the reply channel its job names (`replies`). */
async function startDoubler(name: string, connection: RedisClient, replies: RedisClient | undefined, prefix = 'bull'): Promise<Worker> {
  const worker = await startQueueWorker({
    def: { ...doubling, name },
    handlers: {
      double: async (payload) => {
        if (payload.fail) throw new Error('refused');
        if (payload.sleepMs) await new Promise((r) => setTimeout(r, payload.sleepMs));
        // The handler sees its payload only: the reply channel is not part of it.
        return { answer: payload.n * 2, keys: Object.keys(payload) };
      },
    },
    makeCtx: () => ({}),
    connection,
    prefix,
    concurrency: 4,
    logger,
    replies,
  });
  closers.push(() => closeWorker(worker, 2000));
  return worker;
}

const waitUntilSubscribed = async (client: RedisClient, channel: string) => {
  for (let i = 0; i < 100; i++) {
    const [, count] = (await (client as Redis).pubsub('NUMSUB', channel)) as [string, number];
    if (Number(count) > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`nobody subscribed to ${channel}`);
};

test('the outcome comes back on the reply channel: completed, failed, published before it was asked for; the handler never sees the channel', async () => {
  const queue = openQueue('reply-outcomes', connect());
  const replies = openReplies(connect(), REPLIES_ONLY);
  await waitUntilSubscribed(connect(), replies.address);
  await startDoubler('reply-outcomes', connect({ blocking: true }), connect());
  const channel = { queue, replies };
  const started = Date.now();
  expect(await enqueueAndWait(channel, doubling, 'double', { n: 21 }, { jobId: 'r-1', waitMs: 5000 })).toEqual({
    kind: 'completed',
    value: { answer: 42, keys: ['n'] },
  });
  expect(await enqueueAndWait(channel, doubling, 'double', { n: 1, fail: true }, { jobId: 'r-2', waitMs: 5000 })).toMatchObject({
    kind: 'failed',
    reason: 'refused',
  });
  expect(Date.now() - started).toBeLessThan(5000);
  // Finished while nobody was asking yet (a request held up between the add and the wait).
  const early = replies.listen(queue, 'r-3');
  await enqueue(queue, doubling, 'double', { n: 1 }, { jobId: 'r-3' }, replies.address);
  await new Promise((r) => setTimeout(r, 500));
  expect(await early.outcome(100)).toEqual({ kind: 'completed', value: { answer: 2, keys: ['n'] } });
  // Two waits on one job id in one process (a retried request): both learn the outcome.
  const twice = await Promise.all([
    enqueueAndWait(channel, doubling, 'double', { n: 5, sleepMs: 200 }, { jobId: 'r-4', waitMs: 5000 }),
    enqueueAndWait(channel, doubling, 'double', { n: 5, sleepMs: 200 }, { jobId: 'r-4', waitMs: 5000 }),
  ]);
  expect(twice.map((run) => run.kind)).toEqual(['completed', 'completed']);
  // Stopped (the add failed): nothing is waited for.
  const stopped = replies.listen(queue, 'r-never');
  stopped.stop();
  const before = Date.now();
  expect(await stopped.outcome(5000)).toEqual({ kind: 'timed_out' });
  expect(Date.now() - before).toBeLessThan(1000);
});

test('a job id already there: a finished job is looked up, and a running one added by another process is looked up once it finishes', async () => {
  const queue = openQueue('reply-duplicates', connect());
  const mine = openReplies(connect(), { firstMs: 100, everyMs: 100 });
  const theirs = openReplies(connect(), REPLIES_ONLY);
  await startDoubler('reply-duplicates', connect({ blocking: true }), connect());
  expect(await enqueueAndWait({ queue, replies: theirs }, doubling, 'double', { n: 4 }, { jobId: 'd-1', waitMs: 5000 })).toMatchObject({ kind: 'completed' });
  // Added again under an id that finished: no new outcome is published, so the job is looked up.
  expect(await enqueueAndWait({ queue, replies: mine }, doubling, 'double', { n: 4 }, { jobId: 'd-1', waitMs: 5000 })).toEqual({
    kind: 'completed',
    value: { answer: 8, keys: ['n'] },
  });
  // Running, its outcome published to the other process: this wait looks it up until it has finished.
  const first = enqueueAndWait({ queue, replies: theirs }, doubling, 'double', { n: 6, sleepMs: 400 }, { jobId: 'd-2', waitMs: 5000 });
  const second = enqueueAndWait({ queue, replies: mine }, doubling, 'double', { n: 6, sleepMs: 400 }, { jobId: 'd-2', waitMs: 5000 });
  expect(await Promise.all([first, second])).toEqual([
    { kind: 'completed', value: { answer: 12, keys: ['n', 'sleepMs'] } },
    { kind: 'completed', value: { answer: 12, keys: ['n', 'sleepMs'] } },
  ]);
});

test('a wait nobody answers looks its job up at growing intervals, not at a fixed one (a worker down: every wait runs to its end)', async () => {
  const queue = openQueue('reply-unanswered', connect());
  const replies = openReplies(connect(), { firstMs: 50, everyMs: 50 });
  const probe = connect();
  // Job.fromId reads the job's hash: one HGETALL per look (no worker runs here, so nothing else reads it).
  const lookups = async () => Number(/cmdstat_hgetall:calls=(\d+)/.exec(await probe.info('commandstats'))?.[1] ?? 0);
  const before = await lookups();
  const run = await enqueueAndWait({ queue, replies }, doubling, 'double', { n: 1 }, { jobId: 'unanswered-1', waitMs: 1700 });
  expect(run.kind).toBe('unfinished');
  // At 50, 100, 200, 400 and 800 ms after the first: 5 looks in 1.7 s (a fixed 50 ms would make about 33).
  const looks = (await lookups()) - before;
  expect(looks).toBeGreaterThanOrEqual(3);
  expect(looks).toBeLessThanOrEqual(6);
});

test('Redis gone while waiting: the wait ends at its deadline with nothing known, nothing is left unhandled, and the subscription comes back with Redis', async () => {
  const queue = openQueue('reply-redis-gone', connect());
  const subscriber = connect();
  const replies = openReplies(subscriber, { firstMs: 50, everyMs: 50 });
  const repliesOnly = openReplies(subscriber, REPLIES_ONLY);
  await waitUntilSubscribed(connect(), repliesOnly.address);
  const listener = replies.listen(queue, 'gone-1');
  await redis.kill();
  const started = Date.now();
  expect(await listener.outcome(500)).toEqual({ kind: 'timed_out' });
  expect(Date.now() - started).toBeLessThan(3000);
  await new Promise((r) => setTimeout(r, 300));
  expect(unhandled).toEqual([]);
  await redis.restart();
  // A new redis-server knows no subscription: the reply channel is subscribed again on the reconnect.
  await waitUntilSubscribed(connect(), repliesOnly.address);
  await startDoubler('reply-redis-gone', connect({ blocking: true }), connect());
  expect(await enqueueAndWait({ queue, replies: repliesOnly }, doubling, 'double', { n: 2 }, { jobId: 'gone-2', waitMs: 5000 })).toMatchObject({
    kind: 'completed',
  });
});

test('enqueueAndWait: no outcome within the wait, and no wait at all (no reply channel named)', async () => {
  const queue = openQueue('wait-run', connect());
  const replies = openReplies(connect(), REPLIES_ONLY);
  await startDoubler('wait-run', connect({ blocking: true }), connect());
  const channel = { queue, replies };
  const slow = await enqueueAndWait(channel, doubling, 'double', { n: 1, sleepMs: 1500 }, { jobId: 'run-slow', waitMs: 200 });
  expect(slow.kind).toBe('unfinished');
  const unwaited = await enqueueAndWait(channel, doubling, 'double', { n: 1 }, { jobId: 'run-nowait', waitMs: 0 });
  expect(unwaited.kind).toBe('unfinished');
  if (unwaited.kind === 'unfinished') {
    expect(unwaited.job.id).toBe('run-nowait');
    expect(Object.keys((await queue.getJob('run-nowait'))!.data)).toEqual(['n']);
  }
});

test('enqueueAndWait: a payload outside the catalog, or Redis refusing the job, is "not queued", never a throw', async () => {
  // Its own connection, which closing the queue closes.
  const queue = new Queue('wait-run-refused', { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null } });
  queue.on('error', () => undefined);
  const channel = { queue, replies: openReplies(connect()) };
  const bad = await enqueueAndWait(channel, doubling, 'double', { n: 1.5 }, { jobId: 'run-bad', waitMs: 100 });
  expect(bad.kind).toBe('not_queued');
  expect(await queue.getJob('run-bad')).toBeUndefined();
  await queue.close();
  const closed = await enqueueAndWait(channel, doubling, 'double', { n: 1 }, { jobId: 'run-closed', waitMs: 100 });
  expect(closed).toMatchObject({ kind: 'not_queued', error: expect.any(Error) });
});

test('on a Redis Cluster the outcome comes back on the reply channel', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cowrie-replies-'));
  const cluster = await startRedisCluster({ dir });
  const nodes = cluster.nodeList.split(',').map((n) => ({ host: '127.0.0.1', port: Number(n.split(':')[1]) }));
  const clients: Cluster[] = [];
  const clusterClient = (blocking = false) => {
    const c = new Cluster(nodes, { redisOptions: { maxRetriesPerRequest: blocking ? null : 3 } });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  try {
    const queue = new Queue('cluster-replies', { connection: clusterClient(), prefix: '{cluster-test}' });
    const replies = openJobReplies(clusterClient(), '{cluster-test}', { lookups: REPLIES_ONLY });
    const worker = await startDoubler('cluster-replies', clusterClient(true), clusterClient(), '{cluster-test}');
    expect(await enqueueAndWait({ queue, replies }, doubling, 'double', { n: 21 }, { jobId: 'c-1', waitMs: 10_000 })).toEqual({
      kind: 'completed',
      value: { answer: 42, keys: ['n'] },
    });
    await closeWorker(worker, 2000);
    await replies.close();
    await queue.close();
  } finally {
    for (const c of clients) c.disconnect();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
