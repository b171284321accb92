// Risk: the gateway's "queue, wait a bounded time, else read Postgres"
// (enqueueAndWait) throwing instead of saying what it found, or a payload
// outside the catalog reaching the queue. And: a request waiting for a job's outcome ending the process when Redis
// goes away at that moment (BullMQ's waitUntilFinished checks the job in an
// async Promise executor, whose rejection nobody handles: on a Cluster whose
// master restarts it ended a gateway in the chaos soak), or missing an outcome.
// On a Cluster BullMQ's own scripts leave such rejections too, which Jest
// fails any test on: handleUnhandledRejections (its own test) covers those.
import { Queue, QueueEvents, Worker } from 'bullmq';
import { z } from 'zod';
import { defineQueue, enqueueAndWait, jobOf, listenForJob } from '@cowrie/core';
import { startRedisServer, type RedisServer } from '@cowrie/testing';

let redis: RedisServer;
const closers: Array<() => Promise<unknown>> = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  redis = await startRedisServer();
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await redis.stop();
});

function open(name: string) {
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null, retryStrategy: () => 200 };
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  closers.push(
    () => queue.close(),
    () => events.close(),
  );
  return { queue, events, connection };
}

/** Listens for `jobId`, then adds it: the order enqueueAndWait keeps. */
async function addAndListen(queue: Queue, events: QueueEvents, jobId: string, data: object, opts: object = {}) {
  const listener = listenForJob(queue, events, jobId);
  await queue.add('x', data, { jobId, ...opts });
  return listener;
}

test('the outcome of a job that completes or fails, and of one that finished before its outcome was asked for', async () => {
  const { queue, events, connection } = await open('wait-outcomes');
  await events.waitUntilReady();
  const worker = new Worker(
    'wait-outcomes',
    async (job) => {
      if (job.data.fail) throw new Error('refused');
      return { answer: job.data.n * 2 };
    },
    { connection },
  );
  closers.push(() => worker.close());
  expect(await (await addAndListen(queue, events, 'o-1', { n: 21 })).outcome(5000)).toEqual({ kind: 'completed', value: { answer: 42 } });
  expect(await (await addAndListen(queue, events, 'o-2', { fail: true }, { attempts: 1 })).outcome(5000)).toEqual({ kind: 'failed', reason: 'refused' });
  // Finished while nobody was asking yet (a request held up between the add and the wait).
  const early = await addAndListen(queue, events, 'o-3', { n: 1 });
  await new Promise((r) => setTimeout(r, 500));
  expect(await early.outcome(100)).toEqual({ kind: 'completed', value: { answer: 2 } });
  // Added again under an id that finished long ago: no new outcome is announced, so the job is looked up.
  const again = await addAndListen(queue, events, 'o-1', { n: 21 });
  expect(await again.outcome(2000)).toEqual({ kind: 'completed', value: { answer: 42 } });
  // Stopped (the add failed): nothing is waited for.
  const stopped = listenForJob(queue, events, 'o-never');
  stopped.stop();
  const started = Date.now();
  expect(await stopped.outcome(5000)).toEqual({ kind: 'timed_out' });
  expect(Date.now() - started).toBeLessThan(1000);
});

test('Redis gone while waiting: the wait ends at its deadline with nothing known, and nothing is left unhandled', async () => {
  const { queue, events } = await open('wait-redis-gone');
  await events.waitUntilReady();
  const listener = await addAndListen(queue, events, 'gone-1', { n: 1 });
  await redis.kill();
  const started = Date.now();
  expect(await listener.outcome(500)).toEqual({ kind: 'timed_out' });
  expect(Date.now() - started).toBeLessThan(3000);
  await new Promise((r) => setTimeout(r, 300));
  expect(unhandled).toEqual([]);
  await redis.restart();
});

const doubling = defineQueue('wait-run', { double: jobOf<{ answer: number }>()(z.object({ n: z.number().int() })) });

test('enqueueAndWait: the typed result, a failure, no outcome within the wait, and no wait at all', async () => {
  const { queue, events, connection } = await open('wait-run');
  await events.waitUntilReady();
  const worker = new Worker(
    'wait-run',
    async (job) => {
      if (job.data.n < 0) throw new Error('negative');
      if (job.data.n > 1000) await new Promise((r) => setTimeout(r, 1500));
      return { answer: job.data.n * 2 };
    },
    { connection },
  );
  closers.push(() => worker.close());
  const channel = { queue, events };
  const run = await enqueueAndWait(channel, doubling, 'double', { n: 21 }, { jobId: 'run-21', waitMs: 5000 });
  expect(run).toEqual({ kind: 'completed', value: { answer: 42 } });
  // The declared result type reaches the caller.
  if (run.kind === 'completed') expect(run.value.answer + 0).toBe(42);
  expect(await enqueueAndWait(channel, doubling, 'double', { n: -1 }, { jobId: 'run-neg', waitMs: 5000 })).toMatchObject({
    kind: 'failed',
    reason: 'negative',
  });
  const slow = await enqueueAndWait(channel, doubling, 'double', { n: 5000 }, { jobId: 'run-slow', waitMs: 200 });
  expect(slow.kind).toBe('unfinished');
  const unwaited = await enqueueAndWait(channel, doubling, 'double', { n: 1 }, { jobId: 'run-nowait', waitMs: 0 });
  expect(unwaited.kind).toBe('unfinished');
  if (unwaited.kind === 'unfinished') expect(unwaited.job.id).toBe('run-nowait');
});

test('enqueueAndWait: a payload outside the catalog, or Redis refusing the job, is "not queued", never a throw', async () => {
  const { queue, events } = await open('wait-run-refused');
  const channel = { queue, events };
  const bad = await enqueueAndWait(channel, doubling, 'double', { n: 1.5 }, { jobId: 'run-bad', waitMs: 100 });
  expect(bad.kind).toBe('not_queued');
  expect(await queue.getJob('run-bad')).toBeUndefined();
  await queue.close();
  const closed = await enqueueAndWait(channel, doubling, 'double', { n: 1 }, { jobId: 'run-closed', waitMs: 100 });
  expect(closed).toMatchObject({ kind: 'not_queued', error: expect.any(Error) });
});
