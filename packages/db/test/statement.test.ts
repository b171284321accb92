// Risk: a plain-pg statement's inputs landing in the wrong slots, a numeric
// column arriving as a string where a Decimal is expected, or a statement that
// no longer matches the schema passing its test (the check must see the drift).
import { checkStatementsAgainstSchema, createTestEnv, type TestEnv } from '@cowrie/testing';
import { Prisma, columnList, defineStatement, insertColumns, modelColumns, sqlColumn, sqlColumns, sqlJsonRows, sqlList, sqlParam, type Wallet } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const walletColumns = modelColumns<Wallet>()('Wallet', { id: sqlColumn.int, currency: sqlColumn.text, balance: sqlColumn.decimal, held: sqlColumn.decimal });

test('named inputs reach their own slots, whatever order the object gives them in', async () => {
  const ECHO = defineStatement({
    name: 'test-echo',
    params: { a: sqlParam.text, b: sqlParam.int, at: sqlParam.timestamp, amount: sqlParam.decimal, doc: sqlParam.json, none: sqlParam.text.orNull },
    text: (p) =>
      `SELECT ${p.b}::int AS "b", ${p.a}::text AS "a", ${p.at}::timestamp(3) AS "at", ${p.amount}::numeric AS "amount", ${p.doc}::jsonb AS "doc", ${p.none}::text AS "none"`,
    result: { a: sqlColumn.text, b: sqlColumn.int, at: sqlColumn.timestamp, amount: sqlColumn.decimal, doc: sqlColumn.json, none: sqlColumn.text.orNull },
  });
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const { rows } = await ECHO.run(env.sql, { none: null, doc: { k: [1, 'x'] }, amount: new Prisma.Decimal('12.3456789'), at, b: 7, a: 'first' });
  expect(rows[0]).toEqual({ a: 'first', b: 7, at, amount: new Prisma.Decimal('12.345679'), doc: { k: [1, 'x'] }, none: null });
  expect(rows[0]!.amount).toBeInstanceOf(Prisma.Decimal);
});

test("a batch's rows go out as one array per field (unnest) or one JSON array, each field written by its writer", async () => {
  const fields = { id: sqlParam.int, amount: sqlParam.decimal, at: sqlParam.timestamp, doc: sqlParam.json.orNull };
  const AS_COLUMNS = defineStatement({
    name: 'test-as-columns',
    params: { rows: sqlColumns(fields), ids: sqlList(sqlParam.int) },
    text: (p) => `SELECT "id", "amount", "at", "doc" FROM ${p.rows.unnest} AS i(${p.rows.columns}) WHERE "id" = ANY(${p.ids}::int[]) ORDER BY "id"`,
    result: { id: sqlColumn.int, amount: sqlColumn.decimal, at: sqlColumn.timestamp, doc: sqlColumn.json.orNull },
  });
  const AS_JSON = defineStatement({
    name: 'test-as-json',
    params: { rows: sqlJsonRows(fields) },
    text: (p) =>
      `SELECT "id", "amount", "at", "doc" FROM jsonb_to_recordset(${p.rows}::jsonb) AS i("id" int, "amount" numeric, "at" timestamp(3), "doc" jsonb) ORDER BY "id"`,
    result: { id: sqlColumn.int, amount: sqlColumn.decimal, at: sqlColumn.timestamp, doc: sqlColumn.json.orNull },
  });
  expect(AS_COLUMNS.text).toContain('unnest($1::int[], $2::numeric[], $3::timestamp(3)[], $4::jsonb[]) AS i("id", "amount", "at", "doc")');
  const at = new Date(Date.UTC(2026, 5, 1, 0, 0, 0, 1));
  const rows = [
    { id: 2, amount: new Prisma.Decimal('0.5'), at, doc: null },
    { id: 1, amount: new Prisma.Decimal('1000000000000000000000.000001'), at, doc: { nested: { deep: true } } },
  ];
  const expected = [
    { id: 1, amount: new Prisma.Decimal('1000000000000000000000.000001'), at, doc: { nested: { deep: true } } },
    { id: 2, amount: new Prisma.Decimal('0.5'), at, doc: null },
  ];
  expect((await AS_COLUMNS.run(env.sql, { rows, ids: [1, 2] })).rows).toEqual(expected);
  expect((await AS_JSON.run(env.sql, { rows })).rows).toEqual(expected);
});

test("a model's columns are listed from their readers, and read as Prisma reads them", async () => {
  const WALLETS = defineStatement({
    name: 'test-wallets',
    text: () => `SELECT ${columnList(walletColumns, 'w')} FROM "Wallet" w ORDER BY w."id" LIMIT 1`,
    result: walletColumns,
  });
  expect(WALLETS.text).toContain('w."id", w."currency", w."balance", w."held"');
  expect(columnList({ walletBalance: walletColumns.balance })).toBe('"balance" AS "walletBalance"');
  expect(await checkStatementsAgainstSchema(env.sql, [WALLETS])).toEqual([]);
});

test("an INSERT's column list is checked against the model and written in the order given", async () => {
  // @ts-expect-error -- not a column of Wallet: the list does not compile.
  insertColumns<Wallet>()('workspaceId', 'balanse');
  const columns = insertColumns<Wallet>()('workspaceId', 'currency', 'createdAt', 'updatedAt');
  expect(columns).toBe('"workspaceId", "currency", "createdAt", "updatedAt"');
  const INSERT_WALLET = defineStatement({
    name: 'test-insert-wallet',
    params: { workspaceId: sqlParam.int, now: sqlParam.timestamp },
    text: (p) => `INSERT INTO "Wallet" (${columns}) VALUES (${p.workspaceId}, 'XTS', ${p.now}, ${p.now}) RETURNING "id"`,
    result: { id: walletColumns.id },
  });
  expect(await checkStatementsAgainstSchema(env.sql, [INSERT_WALLET])).toEqual([]);
});

test('an input the text never uses is refused when the statement is defined', () => {
  expect(() => defineStatement({ name: 'test-unused', params: { used: sqlParam.int, forgotten: sqlParam.int }, text: (p) => `SELECT ${p.used}::int` })).toThrow(
    'statement test-unused: its text never uses forgotten',
  );
});

test('the schema check reports each kind of drift, and nothing for a statement that matches', async () => {
  const statements = [
    defineStatement({ name: 'test-misspelled', text: () => 'SELECT "balanse" FROM "Wallet"', result: { balance: sqlColumn.decimal } }),
    defineStatement({ name: 'test-numeric-as-int', text: () => 'SELECT "balance" FROM "Wallet"', result: { balance: sqlColumn.int } }),
    defineStatement({
      name: 'test-gone-column',
      text: () => 'SELECT "balance" AS "gone" FROM "Wallet"',
      result: modelColumns<{ gone: Prisma.Decimal }>()('Wallet', { gone: sqlColumn.decimal }),
    }),
    defineStatement({
      name: 'test-nullable-as-never-null',
      text: () => 'SELECT "revokedAt" FROM "ApiKey"',
      result: modelColumns<{ revokedAt: Date }>()('ApiKey', { revokedAt: sqlColumn.timestamp }),
    }),
    defineStatement({ name: 'test-undeclared', text: () => 'SELECT "id", "held" FROM "Wallet"', result: { id: sqlColumn.int } }),
    defineStatement({
      name: 'test-raw-slot',
      params: { id: sqlParam.int },
      text: (p) => `SELECT "id" FROM "Wallet" WHERE "id" = ${p.id} OR "id" = $2`,
      result: { id: sqlColumn.int },
    }),
    defineStatement({ name: 'test-fine', text: () => `SELECT ${columnList(walletColumns)} FROM "Wallet"`, result: walletColumns }),
  ];
  expect(await checkStatementsAgainstSchema(env.sql, statements)).toEqual([
    'test-misspelled: Postgres refuses it: column "balanse" does not exist',
    'test-numeric-as-int: returns "balance" as numeric, read as integer',
    'test-gone-column: reads "Wallet"."gone", which the schema does not have',
    'test-nullable-as-never-null: reads the nullable "ApiKey"."revokedAt" as never null',
    'test-undeclared: returns "held", which it does not declare',
    'test-raw-slot: Postgres counts 2 parameters, its inputs make 1',
  ]);
});
