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
import { defineQueue, enqueueAndWait, jobOf, waitForJob } from '@cowrie/core';
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

test('the outcome of a job that completes or fails, and of one that finished before the wait began', async () => {
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
  expect(await waitForJob(queue, events, await queue.add('x', { n: 21 }), 5000)).toEqual({ kind: 'completed', value: { answer: 42 } });
  expect(await waitForJob(queue, events, await queue.add('x', { fail: true }, { attempts: 1 }), 5000)).toEqual({ kind: 'failed', reason: 'refused' });
  const early = await queue.add('x', { n: 1 });
  await new Promise((r) => setTimeout(r, 500));
  expect(await waitForJob(queue, events, early, 2000)).toEqual({ kind: 'completed', value: { answer: 2 } });
});

test('Redis gone while waiting: the wait ends at its deadline with nothing known, and nothing is left unhandled', async () => {
  const { queue, events } = await open('wait-redis-gone');
  await events.waitUntilReady();
  const job = await queue.add('x', { n: 1 });
  await redis.kill();
  const started = Date.now();
  expect(await waitForJob(queue, events, job, 500)).toEqual({ kind: 'timed_out' });
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
