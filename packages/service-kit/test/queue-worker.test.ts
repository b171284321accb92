// Risk: a worker stopping mid-job and losing the job, running a job whose
// payload does not match its catalog entry, or reporting a job its handler put
// back for later as failed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createRedis, enqueue, openQueue } from '@cowrie/core';
import { waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { DelayedError, type Job, type Queue } from 'bullmq';
import { closeWorker, startQueueWorker } from '../src';
import { FAST_STALL, probeQueue } from './fixtures/probe-queue';

let env: TestEnv;
let queue: Queue;
// BullMQ leaves connections it was given open: each is closed after the run.
const connections: ReturnType<typeof createRedis>[] = [];
const connection = () => {
  const c = createRedis(env.config, { forBullmq: true });
  connections.push(c);
  return c;
};
const done: string[] = [];
const started: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  queue = openQueue(probeQueue, { connection: connection(), prefix: env.config.QUEUE_PREFIX });
});
afterAll(async () => {
  await queue.close();
  for (const c of connections) c.disconnect();
  await env.cleanup();
});

function start() {
  return startQueueWorker({
    def: probeQueue,
    handlers: {
      'probe.sleep': async ({ ms, tag }, { job }) => {
        // Its first run cannot do its work yet: back to the delayed set, as the webhook-sender does with a full endpoint.
        if (tag === 'put-back' && !started.includes(tag)) {
          started.push(tag);
          await job.moveToDelayed(Date.now() + 200, job.token);
          throw new DelayedError();
        }
        started.push(tag);
        await new Promise((r) => setTimeout(r, ms));
        done.push(tag);
        return tag;
      },
    },
    makeCtx: (job: Job) => ({ job }),
    connection: connection(),
    prefix: env.config.QUEUE_PREFIX,
    concurrency: 2,
    logger: env.logger,
    workerOptions: FAST_STALL,
  });
}

const stateOf = async (jobId: string) => (await queue.getJob(jobId))?.getState();

test('a graceful close lets the in-flight job finish', async () => {
  const worker = await start();
  await enqueue(queue, probeQueue, 'probe.sleep', { ms: 400, tag: 'graceful' }, { jobId: 'probe-graceful' });
  await waitFor(() => started.includes('graceful'));
  expect(await closeWorker(worker, 5000)).toBe('closed');
  expect(done).toContain('graceful');
  expect(await stateOf('probe-graceful')).toBe('completed');
});

test('SIGTERM past the grace bound hands the job back, and another worker completes it', async () => {
  await enqueue(queue, probeQueue, 'probe.sleep', { ms: 60_000, tag: 'handed-back' }, { jobId: 'probe-handed-back' });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/sleep-worker.ts')], {
    env: { ...process.env, REDIS_URL: env.config.REDIS_URL, QUEUE_PREFIX: env.config.QUEUE_PREFIX, SHUTDOWN_GRACE_MS: '200' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  await waitFor(() => output.includes('started'), 20_000);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(await stateOf('probe-handed-back')).toBe('active');
  // The job is long; shorten it so the second worker can finish it.
  await (await queue.getJob('probe-handed-back'))!.updateData({ ms: 10, tag: 'handed-back' });
  const worker = await start();
  try {
    await waitFor(async () => (await stateOf('probe-handed-back')) === 'completed', 15_000);
    expect(done).toContain('handed-back');
  } finally {
    await closeWorker(worker, 5000);
  }
});

test('a payload that does not match the catalog fails before the handler runs', async () => {
  const worker = await start();
  try {
    await queue.add('probe.sleep', { ms: 'soon', tag: 'bad' }, { jobId: 'probe-bad' });
    await waitFor(async () => (await stateOf('probe-bad')) === 'failed');
    expect(started).not.toContain('bad');
    await queue.add('probe.unknown', {}, { jobId: 'probe-unknown' });
    await waitFor(async () => (await stateOf('probe-unknown')) === 'failed');
  } finally {
    await closeWorker(worker, 5000);
  }
});

test('a job its handler put back for later (moveToDelayed, DelayedError) is not failed, nor logged as failing, and runs again', async () => {
  const worker = await start();
  const failed: string[] = [];
  worker.on('failed', (job) => failed.push(job?.id ?? '?'));
  try {
    await enqueue(queue, probeQueue, 'probe.sleep', { ms: 0, tag: 'put-back' }, { jobId: 'probe-put-back' });
    await waitFor(async () => (await stateOf('probe-put-back')) === 'delayed');
    await waitFor(async () => (await stateOf('probe-put-back')) === 'completed', 5000);
    expect(started.filter((tag) => tag === 'put-back')).toHaveLength(2);
    expect(done).toContain('put-back');
    // One attempt (the run that completed it) and two starts: the put back counted none.
    const job = (await queue.getJob('probe-put-back'))!;
    expect([job.attemptsMade, job.attemptsStarted]).toEqual([1, 2]);
    expect(failed).toEqual([]);
    const lines = env.logLines.filter((line) => line.includes('probe-put-back'));
    expect(lines.some((line) => line.includes('job put back for later'))).toBe(true);
    expect(lines.some((line) => line.includes('job failed'))).toBe(false);
  } finally {
    await closeWorker(worker, 5000);
  }
});
