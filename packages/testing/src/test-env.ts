import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { createLogger, createRedis, loadConfig, type Logger, type Config, type RedisClient } from '@cowrie/core';
import { createDb, createSqlPool, type PrismaClient, type SqlPool } from '@cowrie/db';
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

function adminUrl(): URL {
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie');
  url.pathname = '/postgres';
  return url;
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl().toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * An isolated world for one test file: its own database cloned from the
 * migrated template, its own BullMQ prefix and Redis key prefix, and a logger
 * whose lines the test can read. Real Postgres and Redis, never mocks.
 */
export async function createTestEnv(env: Record<string, string> = {}, options: TestEnvOptions = {}): Promise<TestEnv> {
  const id = randomBytes(5).toString('hex');
  // The creating process's id is in the name: a run that starts drops only the
  // databases of processes that are gone (scripts/jest/global-setup.js), so runs
  // side by side (turbo runs one per package) never drop each other's.
  const dbName = `cowrie_t_${process.pid}_${id}`;
  const template = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie_test_template');
  const templateName = template.pathname.slice(1);
  await admin((c) => c.query(`CREATE DATABASE "${dbName}" TEMPLATE "${templateName}"`));
  const dbUrl = new URL(template);
  dbUrl.pathname = `/${dbName}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    DATABASE_URL: dbUrl.toString(),
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
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
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
