import DataLoader from 'dataloader';
import { DatabaseError, Pool, type PoolClient, types } from 'pg';
import type { Logger } from '@cowrie/core';

/**
 * Plain `pg` beside Prisma, for the few hot paths where Prisma's per-query
 * CPU (several times a prepared statement's) or its interactive transactions
 * (a wallet row lock held across event-loop hops) would set the throughput:
 * the API key lookup, payout open and finish, verification start, delivery
 * and check, webhook delivery bookkeeping and the outbox claim; and
 * `cowrie workspace create`, where starting Prisma's query compiler was half
 * of the command's time. Prisma still owns the schema, the migrations and
 * every other query; these
 * statements name the same tables and columns. Each is a `defineStatement`
 * (statement.ts), in the package whose rule it serves.
 */
export type SqlPool = Pool;
export type SqlClient = PoolClient;

/** What a statement needs: a pool or a client inside a transaction. */
export interface SqlQueryable {
  query<R>(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: R[]; rowCount: number | null }>;
}

const TIMESTAMP_OID = 1114;
const INT8_OID = 20;

/**
 * Prisma stores DateTime as `timestamp(3)` holding UTC. pg would read such a
 * value in the process's local time zone; read it as UTC, like Prisma does.
 */
const parseUtcTimestamp = (value: string) => new Date(`${value.replace(' ', 'T')}Z`);

function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === TIMESTAMP_OID) return parseUtcTimestamp;
  if (oid === INT8_OID) return BigInt;
  return types.getTypeParser(oid, format as 'text');
}

export interface CreateSqlPoolOptions {
  databaseUrl: string;
  /** Connections in this pool. Default 10. */
  poolSize?: number;
  /** Told when an idle connection fails (Postgres restarted, the network dropped it). */
  logger?: Pick<Logger, 'warn'>;
  /**
   * The most a statement, or a transaction left idle between statements, may
   * take before Postgres ends it (and releases its row locks). Default 30 s:
   * the hot paths take milliseconds, so only a stuck one ever meets it.
   */
  statementTimeoutMs?: number;
}

export function createSqlPool({ databaseUrl, poolSize = 10, logger, statementTimeoutMs = 30_000 }: CreateSqlPoolOptions): SqlPool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: poolSize,
    types: { getTypeParser: typeParser as never },
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs,
    // Waiting for a free connection is bounded too: a request fails instead of hanging.
    connectionTimeoutMillis: statementTimeoutMs,
  });
  // The pool has already dropped the connection and opens another on demand;
  // without a listener the error would be thrown and end the process.
  pool.on('error', (err) => logger?.warn({ err: { message: err.message } }, 'idle pg connection failed'));
  listenForHeldConnectionErrors(pool);
  return pool;
}

/**
 * Gives every connection `pool` opens an 'error' listener of its own for as
 * long as it lives. pg-pool listens only while a connection idles in the
 * pool; one that dies while checked out between statements (a failover,
 * pg_terminate_backend) with no listener of its holder's emits an error that
 * ends the process (the soak's gateway, once). Nothing is lost by listening:
 * the holder's next statement fails ("not queryable"), and the pool discards
 * the connection when it comes back (holdConnection does so explicitly).
 */
export function listenForHeldConnectionErrors(pool: Pool): void {
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
}

/** A timestamp parameter for a `timestamp(3)` column holding UTC (see parseUtcTimestamp). */
export const utcTimestamp = (date: Date) => date.toISOString();

/**
 * Runs `fn` in one transaction on one pooled connection: committed when it
 * resolves, rolled back when it throws. Put the statement that locks a hot
 * row last: COMMIT then follows it in the same tick, so the lock is held for
 * little more than a round trip.
 */
export async function inSqlTransaction<T>(pool: SqlPool, fn: (client: SqlClient) => Promise<T>): Promise<T> {
  const held = await holdConnection(pool);
  const { client } = held;
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    held.release(broken);
  }
}

export interface HeldConnection {
  client: SqlClient;
  /** Back to the pool, or discarded when `broken` or when it died while held. */
  release: (broken?: boolean) => void;
}

/**
 * A pooled connection to hold across awaits. pg-pool listens for a
 * connection's errors only while it idles in the pool: one that dies while
 * held between statements (a failover, pg_terminate_backend) emits 'error',
 * which would end the process. Held this way, its death is noted and the
 * connection is discarded on release; the next statement on it fails as usual.
 */
export async function holdConnection(pool: SqlPool): Promise<HeldConnection> {
  const client = await pool.connect();
  let died = false;
  const onError = () => {
    died = true;
  };
  client.on('error', onError);
  return {
    client,
    release: (broken = false) => {
      client.removeListener('error', onError);
      client.release(broken || died);
    },
  };
}

/**
 * Postgres refused the statement (an error with a SQLSTATE, such as a
 * constraint, a deadlock or a bad value): nothing of it was committed, so it
 * is safe to run its work again another way. A lost connection is not such an
 * error: the statement may have committed before the reply was lost.
 */
export function isSqlStatementRefused(err: unknown): boolean {
  return err instanceof DatabaseError;
}

/**
 * A unique constraint refused the write: Postgres error 23505 from plain pg,
 * or Prisma's P2002 for the same refusal through the Prisma client. The one
 * check of both; nothing of the refused statement was committed.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '23505' || code === 'P2002';
}

/**
 * Gathers what concurrent callers ask for in one turn of the event loop into
 * one call of `run` (DataLoader, without its cache): under load, one statement
 * serves many callers; alone, a caller waits for nothing. `run` answers each
 * key in order, a value or an Error for that caller alone.
 *
 * `oneAtATime` makes it a group commit for statements that queue on one hot
 * row lock anyway: while a batch is running, callers gather into the next,
 * which starts when it ends, so a burst becomes a few large statements rather
 * than many small ones each waiting for the lock and its commit.
 *
 * `oneByOneWhenRefused` is for batches that write: when Postgres refuses a
 * batch of several (isSqlStatementRefused: nothing of it was committed), each
 * key runs again as a batch of its own, one after another in arrival order,
 * so a bad row or a deadlock fails only its own caller. Any other error (a
 * lost connection: the batch may have committed) fails every caller of the
 * batch. `run` is the only statement: a caller alone is a batch of one.
 */
export interface BatchOptions {
  maxBatchSize?: number;
  oneAtATime?: boolean;
  oneByOneWhenRefused?: boolean;
}

export function batchPerTurn<K, V>(run: (keys: readonly K[]) => Promise<Array<V | Error>>, options: BatchOptions = {}): DataLoader<K, V> {
  if (options.oneByOneWhenRefused) run = oneByOneWhenRefused(run);
  const maxBatchSize = options.maxBatchSize ?? 100;
  if (!options.oneAtATime) return new DataLoader<K, V>(run, { cache: false, batchScheduleFn: (next) => setImmediate(next), maxBatchSize });
  // Every batch waits for all the batches scheduled before it (one full
  // batch's overflow included) to end: never two at once.
  let current: Promise<unknown> = Promise.resolve();
  let queue: Promise<unknown> = Promise.resolve();
  return new DataLoader<K, V>(
    (keys) => {
      const batch = run(keys);
      current = batch.catch(() => undefined);
      return batch;
    },
    {
      cache: false,
      maxBatchSize,
      batchScheduleFn: (dispatch) => {
        queue = queue.then(
          () =>
            new Promise<void>((done) =>
              setImmediate(() => {
                dispatch(); // runs the batch function at once, which sets `current`
                void current.then(() => done());
              }),
            ),
        );
      },
    },
  );
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/**
 * A batch that writes, where one statement cannot change one row twice: `run`
 * once for the first item of each key, then each repeat of a key on its own,
 * in arrival order, so it sees what the first left (as it would a moment
 * later). Only that first call may throw: it committed nothing, so the
 * batcher can run each item alone (oneByOneWhenRefused). Once it has
 * committed, a repeat that fails is its own caller's error, never the batch's,
 * or what was committed would be written again.
 */
export async function firstsThenRepeats<K, V>(
  items: readonly K[],
  keyOf: (item: K) => unknown,
  run: (distinct: readonly K[]) => Promise<V[]>,
): Promise<Array<V | Error>> {
  const seen = new Set<unknown>();
  const firstIndexes = items.flatMap((item, i) => (seen.has(keyOf(item)) ? [] : (seen.add(keyOf(item)), [i])));
  const firstResults = await run(firstIndexes.map((i) => items[i]!));
  const results: Array<V | Error> = [];
  const byIndex = new Map(firstIndexes.map((itemIndex, j) => [itemIndex, firstResults[j]!]));
  for (const [i, item] of items.entries()) {
    results.push(byIndex.has(i) ? byIndex.get(i)! : await run([item]).then(([result]) => result!, asError));
  }
  return results;
}

/** `run`, with a refused batch of several run again key by key (see BatchOptions). */
function oneByOneWhenRefused<K, V>(run: (keys: readonly K[]) => Promise<Array<V | Error>>) {
  return async (keys: readonly K[]): Promise<Array<V | Error>> => {
    try {
      return await run(keys);
    } catch (err) {
      if (keys.length === 1 || !isSqlStatementRefused(err)) throw err;
      const alone: Array<V | Error> = [];
      for (const key of keys) alone.push(await run([key]).then((results) => results[0]!, asError));
      return alone;
    }
  };
}

/**
 * batchPerTurn for each owner of a resource (a pool), made on first use: the
 * calls that share a pool share its batches.
 */
export function batchPerTurnFor<O extends object, K, V>(
  run: (owner: O, keys: readonly K[]) => Promise<Array<V | Error>>,
  options: BatchOptions = {},
): (owner: O) => DataLoader<K, V> {
  const batchers = new WeakMap<O, DataLoader<K, V>>();
  return (owner) => {
    let batcher = batchers.get(owner);
    if (!batcher) batchers.set(owner, (batcher = batchPerTurn((keys) => run(owner, keys), options)));
    return batcher;
  };
}
