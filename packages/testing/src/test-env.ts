import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger, createRedis, loadConfig, type Logger, type Config, type RedisClient } from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient, type SqlPool } from '@cowrie/db';
import { databaseNameOf, dropDatabase, freshDatabase } from './database';
import { scanForSecrets } from './secrets-scan';

export interface TestEnv {
  /** Short random id of this env; names its database, queue prefix and Redis keys. */
  id: string;
  config: Config;
  db: PrismaClient;
  /** Plain pg on the same database, for the hot-path statements (@cowrie/db `sql.ts`). */
  sql: SqlPool;
  redis: RedisClient;
  logger: Logger;
  /** Every log line written through `logger`, as raw JSON text. */
  logLines: string[];
  /**
   * Runs the env's audits on what this file left behind (`audits` of
   * createTestEnv; the ledger's, `@cowrie/ledger/testing`, in every package that
   * can move money) and scans its database, Redis keys and log lines for
   * secrets in plain text (scanForSecrets), then drops the database and the
   * keys. Throws when an audit or the scan found something, failing the file's
   * afterAll.
   */
  cleanup: () => Promise<void>;
}

/**
 * A check of what a test file left behind, run by its env's cleanup before the
 * database is dropped: it throws (an error naming what it found) to fail the
 * file. `@cowrie/testing` knows no domain; a domain package gives its own
 * (the ledger's auditor: `LEDGER_AUDIT` of `@cowrie/ledger/testing`).
 */
export interface CleanupAudit {
  /** Names it in the error when the audit itself could not run. */
  name: string;
  run: (env: TestEnv) => Promise<void>;
}

export interface TestEnvOptions {
  /** Run at cleanup, in this order; every one runs even when an earlier one threw. */
  audits?: readonly CleanupAudit[];
}

export class SecretLeakError extends Error {
  override name = 'SecretLeakError';
}

/**
 * An isolated world for one test file: its own database cloned from the
 * migrated template, its own BullMQ prefix and Redis key prefix, and a logger
 * whose lines the test can read. Real Postgres and Redis, never mocks.
 */
export async function createTestEnv(env: Record<string, string> = {}, options: TestEnvOptions = {}): Promise<TestEnv> {
  const id = randomBytes(5).toString('hex');
  // Named cowrie_t_<pid>_<id>: a run that starts drops only the databases of
  // processes that are gone (scripts/jest/global-setup.js), so runs side by
  // side (turbo runs one per package) never drop each other's.
  const databaseUrl = await freshDatabase('cowrie_t', { from: 'template', tag: id });
  const dbName = databaseNameOf(databaseUrl);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '5',
    QUEUE_PREFIX: `{cowrie-t-${id}}`,
    REDIS_KEY_PREFIX: `cowrie-t-${id}:`,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    SHUTDOWN_GRACE_MS: '3000',
    ...env,
  });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ service: 'test', level: config.LOG_LEVEL, destination: sink });
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolSize: 5 });
  const sql = createSqlPool({ databaseUrl: config.DATABASE_URL, poolSize: 5, logger });
  const redis = createRedis(config, { name: `test-${id}` });
  const audits = options.audits ?? [];
  const testEnv: TestEnv = {
    id,
    config,
    db,
    sql,
    redis,
    logger,
    logLines,
    cleanup: async () => {
      const found: Error[] = [];
      for (const audit of audits) {
        await audit.run(testEnv).catch((err: unknown) => found.push(err instanceof Error ? err : new Error(`the ${audit.name} audit failed: ${String(err)}`)));
      }
      const leaks = await scanForSecrets({ config, db, redis, redisPatterns: [`cowrie-t-${id}:*`, `{cowrie-t-${id}}:*`], logLines }).catch((err: unknown) => [
        { where: 'the scan itself', what: 'an error', context: String(err) },
      ]);
      await Promise.all([db.$disconnect().catch(() => undefined), sql.end().catch(() => undefined)]);
      await deleteKeys(redis, `cowrie-t-${id}:*`);
      await deleteKeys(redis, `{cowrie-t-${id}}:*`);
      await redis.quit().catch(() => undefined);
      await dropDatabase(dbName);
      if (found.length === 1) throw found[0];
      if (found.length > 1) throw new AggregateError(found, found.map((err) => err.message).join('\n\n'));
      if (leaks.length > 0)
        throw new SecretLeakError(`secrets in plain text in what this test file left behind:\n${JSON.stringify(leaks.slice(0, 20), null, 2)}`);
    },
  };
  return testEnv;
}

async function deleteKeys(redis: RedisClient, pattern: string) {
  if (!('scanStream' in redis)) return;
  const stream = redis.scanStream({ match: pattern, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length) await redis.del(...keys);
  }
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
