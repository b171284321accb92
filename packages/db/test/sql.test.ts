// Risk: the plain-pg layer reading what Prisma wrote differently (a timestamp
// shifted by the process's time zone, a bigint rounded), or a failed
// transaction leaving half its writes behind.
import {
  batchPerTurn,
  createSqlPool,
  firstsThenRepeats,
  holdConnection,
  inSqlTransaction,
  isSqlStatementRefused,
  isUniqueViolation,
  utcTimestamp,
  Prisma,
  type SqlPool,
} from '../src';

let sql: SqlPool;
let afterTz = () => {};
afterEach(() => afterTz());
beforeAll(() => {
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  // One connection, so the session's temporary table is seen by every statement.
  sql = createSqlPool({ databaseUrl: url.toString(), poolSize: 1 });
});
afterAll(() => sql.end());

test('a timestamp(3) column is read as UTC, and utcTimestamp writes one as UTC, whatever the process time zone', async () => {
  // pg's own parser would read the column in local time: an hour off in Lagos.
  const zone = process.env.TZ;
  process.env.TZ = 'Africa/Lagos';
  afterTz = () => (zone === undefined ? delete process.env.TZ : (process.env.TZ = zone));
  const instant = new Date(Date.UTC(2026, 10, 22, 10, 0, 0, 123));
  const { rows } = await sql.query<{ read: Date; written: Date }>({
    text: `SELECT '2026-11-22 10:00:00.123'::timestamp(3) AS "read", $1::timestamp(3) AS "written"`,
    values: [utcTimestamp(instant)],
  });
  expect(rows[0]!.read.toISOString()).toBe('2026-11-22T10:00:00.123Z');
  expect(rows[0]!.written.getTime()).toBe(instant.getTime());
});

test('a BIGINT column is read as a bigint, exactly', async () => {
  const { rows } = await sql.query<{ n: bigint }>({ text: 'SELECT 9007199254740993::int8 AS "n"' });
  expect(rows[0]!.n).toBe(9007199254740993n);
});

test('inSqlTransaction commits what resolves and rolls back what throws; a unique violation is recognised', async () => {
  await sql.query({ text: 'CREATE TEMP TABLE IF NOT EXISTS sql_layer_probe (k text PRIMARY KEY)' });
  await inSqlTransaction(sql, (c) => c.query({ text: `INSERT INTO sql_layer_probe VALUES ('kept')` }));
  await expect(
    inSqlTransaction(sql, async (c) => {
      await c.query({ text: `INSERT INTO sql_layer_probe VALUES ('undone')` });
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  const { rows } = await sql.query<{ k: string }>({ text: 'SELECT k FROM sql_layer_probe ORDER BY k' });
  expect(rows.map((r) => r.k)).toEqual(['kept']);
  const duplicate = await sql.query({ text: `INSERT INTO sql_layer_probe VALUES ('kept')` }).catch((err: unknown) => err);
  expect(isUniqueViolation(duplicate)).toBe(true);
  expect(isUniqueViolation(new Error('other'))).toBe(false);
  // The same refusal through the Prisma client is its P2002: one check answers both.
  const throughPrisma = new Prisma.PrismaClientKnownRequestError('Unique constraint failed', { code: 'P2002', clientVersion: Prisma.prismaVersion.client });
  expect(isUniqueViolation(throughPrisma)).toBe(true);
  expect(isUniqueViolation(new Prisma.PrismaClientKnownRequestError('Record not found', { code: 'P2025', clientVersion: Prisma.prismaVersion.client }))).toBe(
    false,
  );
});

test('a statement Postgres refused is told apart from a lost connection (which may have committed)', async () => {
  const refused = await sql.query({ text: 'SELECT 1 / 0' }).catch((err: unknown) => err);
  expect(isSqlStatementRefused(refused)).toBe(true);
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.port = '1';
  const unreachable = createSqlPool({ databaseUrl: url.toString(), poolSize: 1 });
  const lost = await unreachable.query({ text: 'SELECT 1' }).catch((err: unknown) => err);
  await unreachable.end();
  expect((lost as { code?: string }).code).toBe('ECONNREFUSED');
  expect(isSqlStatementRefused(lost)).toBe(false);
  expect(isSqlStatementRefused(new Error('other'))).toBe(false);
});

test("a statement that runs past the pool's statement timeout is ended by Postgres, and the pool goes on", async () => {
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  const quick = createSqlPool({ databaseUrl: url.toString(), poolSize: 1, statementTimeoutMs: 200 });
  try {
    const stuck = await quick.query({ text: 'SELECT pg_sleep(5)' }).catch((err: unknown) => err);
    expect((stuck as { code?: string }).code).toBe('57014');
    expect(isSqlStatementRefused(stuck)).toBe(true);
    expect((await quick.query<{ ok: number }>({ text: 'SELECT 1 AS "ok"' })).rows).toEqual([{ ok: 1 }]);
  } finally {
    await quick.end();
  }
});

test('batchPerTurn gathers one turn into one call, answering each caller its own value or error', async () => {
  const calls: number[][] = [];
  const loader = batchPerTurn<number, number>(async (keys) => {
    calls.push([...keys]);
    return keys.map((k) => (k < 0 ? new Error(`bad ${k}`) : k * 2));
  });
  const results = await Promise.allSettled([1, 2, -3, 4].map((k) => loader.load(k)));
  expect(calls).toEqual([[1, 2, -3, 4]]);
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([2, 4, 'bad -3', 8]);
});

test('batchPerTurn oneAtATime: callers arriving while a batch runs gather into the next, which starts when it ends', async () => {
  let running = 0;
  let mostAtOnce = 0;
  const calls: number[][] = [];
  // Each batch runs until the test lets it end (no timing: arrivals happen while it is held).
  const held: Array<() => void> = [];
  const loader = batchPerTurn<number, number>(
    async (keys) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      calls.push([...keys]);
      await new Promise<void>((resolve) => held.push(resolve));
      running -= 1;
      if (keys.includes(13)) throw new Error('the whole batch failed');
      return keys.map((k) => k);
    },
    { oneAtATime: true },
  );
  const started = async (count: number) => {
    while (calls.length < count) await new Promise((r) => setImmediate(r));
  };
  const first = loader.load(1);
  await started(1); // the first batch is running now
  const later = [2, 3, 4].map((k) => loader.load(k));
  await new Promise((r) => setImmediate(r));
  const latest = loader.load(5);
  await new Promise((r) => setImmediate(r));
  expect(calls).toEqual([[1]]);
  held.shift()!();
  await started(2);
  held.shift()!();
  expect(await Promise.all([first, ...later, latest])).toEqual([1, 2, 3, 4, 5]);
  expect(calls).toEqual([[1], [2, 3, 4, 5]]);
  expect(mostAtOnce).toBe(1);
  // A batch that throws fails its callers, and the next batch still runs.
  const failing = loader.load(13);
  await started(3);
  held.shift()!();
  await expect(failing).rejects.toThrow('the whole batch failed');
  const after = loader.load(6);
  await started(4);
  held.shift()!();
  await expect(after).resolves.toBe(6);
});

test('batchPerTurn oneAtATime: more callers than a batch holds still run one batch at a time', async () => {
  let running = 0;
  let mostAtOnce = 0;
  const sizes: number[] = [];
  const loader = batchPerTurn<number, number>(
    async (keys) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      sizes.push(keys.length);
      await new Promise((r) => setTimeout(r, 10));
      running -= 1;
      return keys.map((k) => k * 10);
    },
    { oneAtATime: true, maxBatchSize: 10 },
  );
  const all = Array.from({ length: 26 }, (_, i) => loader.load(i));
  expect(await Promise.all(all)).toEqual(Array.from({ length: 26 }, (_, i) => i * 10));
  expect(sizes).toEqual([10, 10, 6]);
  expect(mostAtOnce).toBe(1);
});

test('batchPerTurn oneByOneWhenRefused: a refused batch runs again key by key, so only the bad key fails; a lost connection fails them all', async () => {
  // One session throughout, so its temporary table is seen by every statement.
  const session = await sql.connect();
  await session.query('CREATE TEMP TABLE batch_probe (k text PRIMARY KEY, n int CHECK (n >= 0))');
  const batches: string[][] = [];
  let loseConnection = false;
  const insert = batchPerTurn<{ k: string; n: number }, string>(
    async (rows) => {
      batches.push(rows.map((r) => r.k));
      if (loseConnection) throw new Error('Connection terminated unexpectedly');
      const { rows: inserted } = await session.query<{ k: string }>({
        text: 'INSERT INTO batch_probe SELECT * FROM unnest($1::text[], $2::int[]) RETURNING k',
        values: [rows.map((r) => r.k), rows.map((r) => r.n)],
      });
      return inserted.map((r) => r.k);
    },
    { oneByOneWhenRefused: true },
  );
  const results = await Promise.allSettled([insert.load({ k: 'a', n: 1 }), insert.load({ k: 'bad', n: -1 }), insert.load({ k: 'c', n: 3 })]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(isSqlStatementRefused((results[1] as PromiseRejectedResult).reason)).toBe(true);
  // The batch, then each key alone, in arrival order.
  expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  expect((await session.query<{ k: string }>('SELECT k FROM batch_probe ORDER BY k')).rows.map((r) => r.k)).toEqual(['a', 'c']);

  // A lost connection may have committed: nothing runs again, every caller fails.
  loseConnection = true;
  batches.length = 0;
  const lost = await Promise.allSettled([insert.load({ k: 'd', n: 1 }), insert.load({ k: 'e', n: 1 })]);
  expect(lost.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(batches).toEqual([['d', 'e']]);
  await session.query('DROP TABLE batch_probe');
  session.release();
});

test('a held connection that dies between statements (a failover, pg_terminate_backend) does not end the process, and is discarded', async () => {
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  const pool = createSqlPool({ databaseUrl: url.toString(), poolSize: 2 });
  try {
    const held = await holdConnection(pool);
    const { rows } = await held.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // Terminated from another connection while held and idle: pg emits 'error' on the client, which without a listener is thrown.
    await sql.query({ text: 'SELECT pg_terminate_backend($1)', values: [rows[0]!.pid] });
    await new Promise((r) => setTimeout(r, 200));
    await expect(held.client.query('SELECT 1')).rejects.toThrow();
    held.release();
    expect(pool.totalCount).toBe(0);
    // The pool opens a fresh one.
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  } finally {
    await pool.end();
  }
});

test('any connection the pool hands out, held however it is, dies without ending the process (pg emits its error with no owner listening)', async () => {
  const url = new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  const pool = createSqlPool({ databaseUrl: url.toString(), poolSize: 2 });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => void uncaught.push(err);
  process.prependListener('uncaughtException', onUncaught);
  try {
    // Checked out bare (no holdConnection), as a library on the pool might: no 'error' listener of its own.
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await sql.query({ text: 'SELECT pg_terminate_backend($1)', values: [rows[0]!.pid] });
    await new Promise((r) => setTimeout(r, 200));
    expect(uncaught).toEqual([]);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  } finally {
    process.removeListener('uncaughtException', onUncaught);
    await pool.end();
  }
});

test('firstsThenRepeats: the first of each key in one call, each repeat alone after it in arrival order; a repeat that fails fails alone', async () => {
  const calls: string[][] = [];
  const results = await firstsThenRepeats(
    ['a', 'b', 'a', 'c', 'a'],
    (k) => k,
    async (distinct) => {
      calls.push([...distinct]);
      if (calls.length === 3) throw new Error('second repeat refused');
      return distinct.map((k) => `${k}${calls.length}`);
    },
  );
  expect(calls).toEqual([['a', 'b', 'c'], ['a'], ['a']]);
  expect(results.slice(0, 4)).toEqual(['a1', 'b1', 'a2', 'c1']);
  expect(results[4]).toBeInstanceOf(Error);
  // The first call's failure is the batch's (nothing was written; the batcher may run each alone).
  await expect(
    firstsThenRepeats(
      ['x'],
      (k) => k,
      () => Promise.reject(new Error('refused')),
    ),
  ).rejects.toThrow('refused');
});
