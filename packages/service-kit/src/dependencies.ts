import type { Logger, RedisClient } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';

/** Waits until Postgres and Redis both answer, retrying with a capped backoff. */
export async function waitForDependencies(db: PrismaClient, redis: RedisClient, logger: Logger, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 200;
  for (;;) {
    try {
      await Promise.all([db.$queryRaw`SELECT 1`, redis.ping()]);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Postgres or Redis did not answer within ${timeoutMs} ms: ${(err as Error).message}`);
      logger.warn({ err: { message: (err as Error).message }, retryInMs: delay }, 'waiting for Postgres and Redis');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
