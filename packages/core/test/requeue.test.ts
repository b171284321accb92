// Risk: a record's job queued twice while one still runs, or a record left
// without a job after its job finished or failed (BullMQ ignores an add whose
// id it keeps). The payout reconciler and the webhook sweep both rely on
// requeueUnlessLive; this runs it against real Redis and BullMQ.
import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { createRedis, isJobLive, loadConfig, requeueUnlessLive, type RedisClient } from '../src';

const config = loadConfig(process.env);
const prefix = `{core-requeue-${randomUUID()}}`;
const name = 'requeue';
let connection: RedisClient;
let queue: Queue;

beforeAll(() => {
  connection = createRedis(config, { forBullmq: true, name: 'requeue-test' });
  queue = new Queue(name, { connection, prefix, defaultJobOptions: { attempts: 3, removeOnComplete: false, removeOnFail: false } });
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

/** Runs the queue's jobs until `jobId` is finished (a job whose data says `fail` throws on every attempt), then stops the worker. */
async function finish(jobId: string): Promise<Job> {
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const worker = new Worker(
    name,
    async (job) => {
      if (job.data.fail) throw new Error('refused');
      return 'ok';
    },
    { connection, prefix },
  );
  const check = async () => {
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') settle();
  };
  worker.on('completed', () => void check());
  worker.on('failed', () => void check());
  await check();
  await done;
  await worker.close();
  return (await queue.getJob(jobId))!;
}

const adder = (jobId: string, data: object) => {
  const calls: string[] = [];
  return { calls, add: async () => void calls.push((await queue.add('x', data, { jobId, attempts: 1 })).id!) };
};

test('no job under the id: add runs', async () => {
  const jobId = `absent-${randomUUID()}`;
  expect(await isJobLive(queue, jobId)).toBe(false);
  const { calls, add } = adder(jobId, { n: 1 });
  expect(await requeueUnlessLive(queue, jobId, add)).toBe('added');
  expect(calls).toEqual([jobId]);
  expect(await queue.getJobState(jobId)).toBe('waiting');
});

test('a waiting, delayed, prioritized or active job is live: add does not run', async () => {
  const waiting = `waiting-${randomUUID()}`;
  const delayed = `delayed-${randomUUID()}`;
  const prioritized = `prioritized-${randomUUID()}`;
  await queue.add('x', {}, { jobId: waiting });
  await queue.add('x', {}, { jobId: delayed, delay: 60_000 });
  await queue.add('x', {}, { jobId: prioritized, priority: 5 });
  for (const jobId of [waiting, delayed, prioritized]) {
    expect(await isJobLive(queue, jobId)).toBe(true);
    const { calls, add } = adder(jobId, {});
    expect(await requeueUnlessLive(queue, jobId, add)).toBe('live');
    expect(await requeueUnlessLive(queue, jobId, add, { failed: 'retry' })).toBe('live');
    expect(calls).toEqual([]);
  }
  await queue.drain(true);

  const active = `active-${randomUUID()}`;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const worker = new Worker(
    name,
    async () => {
      started();
      await held;
    },
    { connection, prefix },
  );
  await queue.add('x', {}, { jobId: active });
  await running;
  expect(await queue.getJobState(active)).toBe('active');
  expect(await isJobLive(queue, active)).toBe(true);
  const { calls, add } = adder(active, {});
  expect(await requeueUnlessLive(queue, active, add)).toBe('live');
  expect(calls).toEqual([]);
  release();
  await worker.close();
});

test('a completed job kept under the id is removed, then add runs: a new job waits', async () => {
  const jobId = `completed-${randomUUID()}`;
  await queue.add('x', { n: 1 }, { jobId });
  expect((await finish(jobId)).returnvalue).toBe('ok');
  expect(await isJobLive(queue, jobId)).toBe(false);
  const { calls, add } = adder(jobId, { n: 2 });
  expect(await requeueUnlessLive(queue, jobId, add, { failed: 'retry' })).toBe('added');
  expect(calls).toEqual([jobId]);
  const job = (await queue.getJob(jobId))!;
  expect([await job.getState(), job.data]).toEqual(['waiting', { n: 2 }]);
});

test('a failed job is replaced by default: the new job starts its attempts again', async () => {
  const jobId = `failed-${randomUUID()}`;
  await queue.add('x', { fail: true }, { jobId, attempts: 2, backoff: 0 });
  const failed = await finish(jobId);
  expect([failed.attemptsMade, failed.failedReason]).toEqual([2, 'refused']);
  expect(await isJobLive(queue, jobId)).toBe(false);
  const { calls, add } = adder(jobId, { n: 3 });
  expect(await requeueUnlessLive(queue, jobId, add)).toBe('added');
  expect(calls).toEqual([jobId]);
  const job = (await queue.getJob(jobId))!;
  expect([await job.getState(), job.data, job.attemptsMade]).toEqual(['waiting', { n: 3 }, 0]);
});

test("with failed: 'retry' a failed job is moved back to waiting in place, keeping its data and attempts; add does not run", async () => {
  const jobId = `retried-${randomUUID()}`;
  await queue.add('x', { fail: true }, { jobId, attempts: 1 });
  expect((await finish(jobId)).attemptsMade).toBe(1);
  const { calls, add } = adder(jobId, { n: 4 });
  expect(await requeueUnlessLive(queue, jobId, add, { failed: 'retry' })).toBe('retried');
  expect(calls).toEqual([]);
  const job = (await queue.getJob(jobId))!;
  expect([await job.getState(), job.data, job.attemptsMade]).toEqual(['waiting', { fail: true }, 1]);
  expect(await isJobLive(queue, jobId)).toBe(true);
});

test('add may only collect the job for a later bulk add: it runs once, after the kept job is gone', async () => {
  const jobId = `collected-${randomUUID()}`;
  await queue.add('x', {}, { jobId });
  await finish(jobId);
  const collected: string[] = [];
  expect(await requeueUnlessLive(queue, jobId, () => collected.push(jobId))).toBe('added');
  expect(collected).toEqual([jobId]);
  expect(await queue.getJob(jobId)).toBeUndefined();
  await queue.addBulk(collected.map((id) => ({ name: 'x', data: { bulk: true }, opts: { jobId: id } })));
  expect((await queue.getJob(jobId))!.data).toEqual({ bulk: true });
});
