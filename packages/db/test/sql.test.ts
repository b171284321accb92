// Risk: the plain-pg layer reading what Prisma wrote differently (a timestamp
// shifted by the process's time zone, a bigint rounded), or a failed
// transaction leaving half its writes behind.
import { createSqlPool, inSqlTransaction, isSqlUniqueViolation, utcTimestamp, type SqlPool } from '../src';

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
  expect(isSqlUniqueViolation(duplicate)).toBe(true);
  expect(isSqlUniqueViolation(new Error('other'))).toBe(false);
});
