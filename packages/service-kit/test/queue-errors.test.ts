// Risk: while Redis is away, every producer queue prints each reconnect
// attempt's error to the console (BullMQ does that for a queue whose errors
// nobody listens to), bypassing the structured log and flooding it; or the
// queue's errors are dropped without a word.
import { Writable } from 'node:stream';
import { z } from 'zod';
import { createLogger, createRedis, defineQueue, loadConfig, openQueue } from '@cowrie/core';
import { startRedisServer, waitFor } from '@cowrie/testing';

const probeQueue = defineQueue('queue-errors-probe', { 'probe.noop': { schema: z.object({}) } });

test('a queue whose Redis is gone logs one structured warning per 10 s and prints nothing to the console', async () => {
  const redis = await startRedisServer();
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ service: 'queue-errors-test', destination });
  const config = loadConfig({ ...process.env, REDIS_URL: redis.url });
  const connection = createRedis(config, { forBullmq: true, name: 'queue-errors' });
  const queue = openQueue(probeQueue, { connection, prefix: 'queue-errors', logger });
  const printed: unknown[][] = [];
  const consoleError = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args));
  try {
    // A job scheduler handle (the payout worker removes a legacy one at start)
    // forwards its connection's errors to the queue.
    await queue.removeJobScheduler('absent');
    await redis.kill();
    await waitFor(() => lines.length > 0, 5000);
    // Several reconnect attempts later: still the one warning, nothing printed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(printed).toEqual([]);
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 40,
        queue: 'queue-errors-probe',
        err: expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }),
        msg: 'queue error',
      }),
    ]);
  } finally {
    consoleError.mockRestore();
    await queue.close();
    connection.disconnect();
    await redis.stop();
  }
});
