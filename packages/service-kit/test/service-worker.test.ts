// Risk: a worker service started or stopped in the wrong order: consuming
// before its own readiness step, its loops still queueing while the worker and
// queue close, its connections closed under a job still running, or in-flight
// calls abandoned before the grace period is over (or never, or a worker that
// aborts none). The three worker services start and stop through
// startServiceWorker.
import type { Queue } from 'bullmq';
import { z } from 'zod';
import { createRedis, defineQueue, enqueue, openQueue, type RedisClient } from '@cowrie/core';
import type { SqlPool } from '@cowrie/db';
import { waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { startServiceWorker, type PastGrace, type PollingLoop, type ServiceWorkerResources, type ServiceQueue } from '../src';

const holdQueue = defineQueue('service-worker-probe', {
  // Runs `ms`, or until the worker's grace is over, then takes `unwindMs` to return.
  'probe.hold': { schema: z.object({ tag: z.string(), ms: z.number().int().nonnegative(), unwindMs: z.number().int().nonnegative() }) },
});

let env: TestEnv;
let producer: Queue;
let producerConnection: RedisClient;
const events: string[] = [];
const at: Record<string, number> = {};
const note = (event: string) => {
  events.push(event);
  at[event] = Date.now();
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Ends every handler still holding its job (one handed back keeps running in this process until it returns). */
const releases = new Set<() => void>();

beforeAll(async () => {
  env = await createTestEnv();
  producerConnection = createRedis(env.config, { forBullmq: true });
  producer = openQueue(holdQueue, { connection: producerConnection, prefix: env.config.QUEUE_PREFIX });
});
afterAll(async () => {
  await producer?.close();
  producerConnection?.disconnect();
  await env?.cleanup();
});
beforeEach(() => {
  events.length = 0;
});

/** The Redis connections open under `name` (the service's own, its BullMQ one, its producer) are `expected`, once they settle. */
async function expectConnections(name: string, expected: string[]): Promise<void> {
  let names: string[] = [];
  await waitFor(async () => {
    const list = String(await env.redis.call('CLIENT', 'LIST'));
    names = [...list.matchAll(/ name=(\S*)/g)].map((m) => m[1]!).filter((n) => n === name || n.startsWith(`${name}-`));
    names.sort();
    return names.join() === expected.join();
  }, 5000).catch(() => undefined);
  expect(names).toEqual(expected);
}

/** A loop that only notes when it is stopped, and what was still open then. */
function noteLoop(check: () => void): PollingLoop {
  return {
    wake: () => undefined,
    stop: async () => {
      check();
      note('loop stopped');
    },
  };
}

function start<Q extends ServiceQueue>(opts: {
  name: string;
  graceMs: number;
  queue: Q;
  pastGrace?: PastGrace;
  onWire?: (r: ServiceWorkerResources<Q>) => void;
  loops?: () => PollingLoop[];
  close?: () => Promise<void>;
}) {
  return startServiceWorker({
    name: opts.name,
    config: { ...env.config, SHUTDOWN_GRACE_MS: opts.graceMs },
    logger: env.logger,
    def: holdQueue,
    handlers: {
      'probe.hold': async ({ tag, ms, unwindMs }, ctx: { signal: AbortSignal }) => {
        note(`${tag} started`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          timer.unref();
          releases.add(resolve);
          ctx.signal.addEventListener('abort', () => {
            note(`${tag} aborted: ${(ctx.signal.reason as Error).message}`);
            clearTimeout(timer);
            resolve();
          });
        });
        await sleep(unwindMs);
        note(`${tag} returned`);
        return tag;
      },
    },
    concurrency: 2,
    workerOptions: { lockDuration: 1000, stalledInterval: 300 },
    queue: opts.queue,
    pastGrace: opts.pastGrace,
    wire: (resources) => {
      note('wired');
      opts.onWire?.(resources);
      return {
        makeCtx: () => ({ signal: resources.graceOver }),
        ready: async () => {
          note('ready');
          await sleep(300);
        },
        startLoops: () => {
          note('loops started');
          return opts.loops?.() ?? [];
        },
        close: opts.close,
      };
    },
  });
}

test('start: its own parts are wired, then its ready step runs before any job, then its loops start', async () => {
  const name = `probe-start-${process.pid}`;
  await enqueue(producer, holdQueue, 'probe.hold', { tag: 'early', ms: 0, unwindMs: 0 }, { jobId: 'probe-early' });
  const running = await start({ name, graceMs: 1000, queue: 'on_worker_connection' });
  try {
    await waitFor(() => events.includes('early returned'));
    expect(events.slice(0, 3)).toEqual(['wired', 'ready', 'loops started']);
    expect(at['early started']!).toBeGreaterThanOrEqual(at['ready']! + 300);
    // Its queue is on the worker's connection: no producer connection of its own.
    await expectConnections(name, [name, `${name}-queue`]);
  } finally {
    await running.stop();
  }
  await expectConnections(name, []);
});

test('stop: loops first, then the worker within the grace period (calls aborted at it), then the queue, its own parts, the connections', async () => {
  const name = `probe-abort-${process.pid}`;
  let resources: ServiceWorkerResources<'on_own_connection'> | undefined;
  const running = await start({
    name,
    graceMs: 400,
    queue: 'on_own_connection',
    pastGrace: { kind: 'abort', reason: 'probe stopping', unwindMs: 2000 },
    onWire: (r) => (resources = r),
    loops: () => [
      noteLoop(() => {
        // Nothing is closed yet when the loops stop.
        expect(running.worker.isRunning()).toBe(true);
        expect(running.queue.closing).toBeUndefined();
      }),
    ],
    close: async () => {
      // The job has returned and the queue is closed; the connections are still open.
      expect(events).toContain('held returned');
      expect(running.queue.closing).toBeDefined();
      expect(resources!.redis.status).toBe('ready');
      expect((resources!.sql as SqlPool & { ended: boolean }).ended).toBe(false);
      note('parts closed');
    },
  });
  await expectConnections(name, [name, `${name}-producer`, `${name}-queue`]);
  await enqueue(running.queue, holdQueue, 'probe.hold', { tag: 'held', ms: 60_000, unwindMs: 100 }, { jobId: 'probe-held' });
  await waitFor(() => events.includes('held started'));
  note('stop');
  await running.stop();
  expect(events.slice(events.indexOf('stop'))).toEqual(['stop', 'loop stopped', 'held aborted: probe stopping', 'held returned', 'parts closed']);
  // Aborted at the grace period, not before; the job returned within its unwind time and completed.
  expect(at['held aborted: probe stopping']! - at['stop']!).toBeGreaterThanOrEqual(395);
  expect(await (await producer.getJob('probe-held'))!.getState()).toBe('completed');
  expect(resources!.redis.status).toBe('end');
  expect((resources!.sql as SqlPool & { ended: boolean }).ended).toBe(true);
  await expectConnections(name, []);
});

test('stop past the grace period without abort: the job is handed back at once and its signal never aborted', async () => {
  const name = `probe-hand-back-${process.pid}`;
  let resources: ServiceWorkerResources<'none'> | undefined;
  const running = await start({ name, graceMs: 300, queue: 'none', onWire: (r) => (resources = r) });
  expect(running.queue).toBeUndefined();
  await expectConnections(name, [name, `${name}-queue`]);
  await enqueue(producer, holdQueue, 'probe.hold', { tag: 'kept', ms: 60_000, unwindMs: 0 }, { jobId: 'probe-kept' });
  await waitFor(() => events.includes('kept started'));
  const stopAt = Date.now();
  await running.stop();
  // The grace period, then at most a second to drop the worker's connections.
  expect(Date.now() - stopAt).toBeGreaterThanOrEqual(295);
  expect(Date.now() - stopAt).toBeLessThan(300 + 1000 + 500);
  expect(resources!.graceOver.aborted).toBe(false);
  expect(events).not.toContain('kept returned');
  expect(await (await producer.getJob('probe-kept'))!.getState()).toBe('active');
  await expectConnections(name, []);
  // Its handler ending now must not report on the dropped connections: BullMQ
  // would retry that with no pause, starving the event loop (this test's timer
  // would never fire, and the rest of a service's shutdown would never run).
  for (const release of releases) release();
  const before = Date.now();
  await sleep(200);
  expect(Date.now() - before).toBeLessThan(1000);
  expect(events).toContain('kept returned');
  expect(await (await producer.getJob('probe-kept'))!.getState()).toBe('active');
});
