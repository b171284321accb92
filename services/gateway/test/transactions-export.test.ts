// Risk: the ledger's filters (type, time, search) keeping the wrong rows (a
// search's `%` or `_` read as a LIKE wildcard, a `\` as its escape); an
// export that differs from the list it claims to be, shows amounts through a
// float, hands a spreadsheet a formula, shows another workspace's rows, or
// loads a large ledger into the gateway's memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'csv-parse/sync';
import { Decimal } from '@cowrie/core';
import { creditWallet } from '@cowrie/ledger';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let a: Awaited<ReturnType<typeof signInNewWorkspace>>;
let b: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ PUBLIC_API_RATE_LIMIT: '1000', DASHBOARD_RATE_LIMIT: '1000' });
  a = await signInNewWorkspace(gw, 'Export A');
  b = await signInNewWorkspace(gw, 'Export B');
});
afterAll(() => gw.close());

/** Money in through the ledger, as a collection from `name` arrives: the credit and the inbound payment that names it (its source, for the auditor). */
const credit = (workspaceId: number, amount: string, name: string, account: string) =>
  gw.env.db.$transaction(async (tx) => {
    const credited = await creditWallet(tx, {
      workspaceId,
      currency: 'NGN',
      amount: new Decimal(amount),
      category: 'collection',
      channel: 'collection_va',
      title: 'Collection',
      description: `from ${name}`,
      provider: 'sandbox',
      providerReference: `rail-${account}`,
      counterpartyName: name,
      counterpartyAccount: account,
      counterpartyBank: 'Test Bank',
    });
    await tx.inboundPayment.create({
      data: {
        provider: 'sandbox',
        providerReference: credited.transaction.reference,
        amount: credited.transaction.amount,
        currency: 'NGN',
        status: 'credited',
        workspaceId,
        ledgerTransactionId: credited.transaction.id,
      },
    });
    return credited;
  });

/** Bytes of the heap still reachable after a full collection. */
function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

async function exportCsv(token: string, query = '') {
  const res = await fetch(`${gw.url}/transactions/export${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const recordsOf = (csv: string) => parse(csv, { columns: true }) as Array<Record<string, string>>;

test('the ledger filters by type, time and search, on /v1 and in the session; the export holds exactly the filtered list', async () => {
  await credit(a.workspaceId, '1500.25', 'Ada Obi', '0123456789');
  await credit(a.workspaceId, '10', 'Bola, "Ade" & Co', '1111111111');
  const formula = await credit(a.workspaceId, '0.5', '=HYPERLINK("http://evil.test","click")', '2222222222');
  await credit(b.workspaceId, '99', 'Ada Obi', '0123456789');

  const v1 = (query: string) => call(gw.url, 'GET', `/v1/transactions?${query}`, { token: a.apiKey });
  const names = (res: { body: { data: Array<{ counterpartyName: string }> } }) => res.body.data.map((t) => t.counterpartyName);
  // 'obi', not 'ada': the search also matches references, and 'ada' is hex (a reference held it one run in a few hundred).
  expect(names(await v1('search=obi'))).toEqual(['Ada Obi']);
  expect(names(await v1('search=rail-1111'))).toEqual(['Bola, "Ade" & Co']);
  expect(names(await v1('search=2222222222'))).toEqual([formula.transaction.counterpartyName]);
  expect((await v1('type=debit')).body.data).toEqual([]);
  expect(names(await v1('type=credit&limit=2'))).toHaveLength(2);
  const all = (await v1('limit=100')).body.data as Array<{ reference: string; createdAt: string; amount: string }>;
  expect(all).toHaveLength(3);
  const middle = all[1]!;
  expect((await v1(`from=${middle.createdAt}&to=${all[0]!.createdAt}`)).body.data.map((t: { reference: string }) => t.reference)).toEqual([middle.reference]);
  // Year 0 is a valid ISO time that no database column holds: a 400, never a 500. So is a cursor naming it.
  const yearZeroCursor = Buffer.from(JSON.stringify([Date.parse('0000-01-01T00:00:00Z'), 1])).toString('base64url');
  for (const bad of [
    'type=refund',
    'from=yesterday',
    'to=2026-02-30T00:00:00Z',
    'from=0000-01-01T00:00:00Z',
    `cursor=${yearZeroCursor}`,
    `search=${'x'.repeat(101)}`,
  ]) {
    const res = await v1(bad);
    expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_request']);
  }

  const exported = await exportCsv(a.token);
  expect(exported.status).toBe(200);
  expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/);
  expect(exported.text.split('\r\n')[0]).toBe(
    'reference,created_at,type,direction,category,channel,status,currency,amount,fees,counterparty_name,counterparty_account,counterparty_bank,provider,provider_reference,idempotency_key,title,description',
  );
  const rows = recordsOf(exported.text);
  // The same rows as the list, in its order, amounts as its strings.
  expect(rows.map((r) => [r.reference, r.created_at, r.amount])).toEqual(all.map((t) => [t.reference, t.createdAt, t.amount]));
  expect(rows.find((r) => r.counterparty_account === '1111111111')!.counterparty_name).toBe('Bola, "Ade" & Co');
  // A spreadsheet shows the formula as text instead of running it.
  expect(rows.find((r) => r.counterparty_account === '2222222222')!.counterparty_name).toBe(`'${formula.transaction.counterpartyName}`);
  expect(recordsOf((await exportCsv(a.token, '?search=obi')).text).map((r) => r.counterparty_name)).toEqual(['Ada Obi']);
  expect(recordsOf((await exportCsv(a.token, '?type=debit')).text)).toEqual([]);

  // Another workspace's session exports its own rows only; an API key gets nothing.
  const ofB = recordsOf((await exportCsv(b.token)).text);
  expect(ofB.map((r) => r.amount)).toEqual(['99.000000']);
  expect(ofB.some((r) => all.some((t) => t.reference === r.reference))).toBe(false);
  expect((await exportCsv(a.apiKey)).status).toBe(401);
  for (const query of ['from=soon', 'to=0000-01-01T00:00:00Z']) {
    const bad = await call(gw.url, 'GET', `/transactions/export?${query}`, { token: a.token });
    expect([query, bad.status, bad.body.error.code]).toEqual([query, 400, 'invalid_request']);
  }
});

test("search reads `%`, `_` and `\\` as themselves, never as LIKE's wildcards or escape: on /v1, in the session and in the export", async () => {
  const w = await signInNewWorkspace(gw, 'Export Wildcards');
  for (const [name, account] of [
    ['100% Pure', '3000000001'],
    ['Snake_Case Ltd', '3000000002'],
    ['SnakeXCase Ltd', '3000000003'],
    ['Back\\slash Co', '3000000004'],
    ['Plain Co', '3000000005'],
  ] as const) {
    await credit(w.workspaceId, '1', name, account);
  }
  const v1 = (search: string) => call(gw.url, 'GET', `/v1/transactions?search=${encodeURIComponent(search)}`, { token: w.apiKey });
  const session = (search: string) => call(gw.url, 'GET', `/transactions?search=${encodeURIComponent(search)}`, { token: w.token });
  const names = (res: { status: number; body: { data: Array<{ counterpartyName: string }> } }) => [res.status, res.body.data?.map((t) => t.counterpartyName)];
  // 'e_c', not '_': every reference holds a `_` (crd_…); 'e_c' is in no reference (hex after `crd_`).
  for (const [search, expected] of [
    ['%', ['100% Pure']],
    ['0%', ['100% Pure']],
    ['e_c', ['Snake_Case Ltd']],
    ['\\', ['Back\\slash Co']],
    ['%\\', []],
    ['k\\s', ['Back\\slash Co']],
  ] as const) {
    expect([search, ...names(await v1(search))]).toEqual([search, 200, expected]);
    expect([search, ...names(await session(search))]).toEqual([search, 200, expected]);
    const exported = await exportCsv(w.token, `?search=${encodeURIComponent(search)}`);
    expect([search, exported.status, recordsOf(exported.text).map((r) => r.counterparty_name)]).toEqual([search, 200, expected]);
  }
});

test('a 100,000-row export arrives whole, newest first, without the ledger being held in memory', async () => {
  const large = await signInNewWorkspace(gw, 'Export Large');
  const count = 100_000;
  // 100,000 collection credits as the inbound path writes them (transaction, entry, balance, the inbound payment naming the credit), in one statement: the ledger stays whole for the auditor.
  await gw.env.db.$executeRaw`
    WITH wallet AS (SELECT "id" FROM "Wallet" WHERE "workspaceId" = ${large.workspaceId} AND "currency" = 'NGN'),
    created AS (
      INSERT INTO "LedgerTransaction" ("workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference", "idempotencyKey",
        "currency", "amount", "fees", "title", "description", "provider", "counterpartyName", "counterpartyAccount", "createdAt", "updatedAt")
      SELECT ${large.workspaceId}, w."id", 'credit', 'in', 'collection', 'collection_va', 'completed', 'crd_bulk_' || g, 'crd_bulk_' || g,
        'NGN', 1.000001, 0, 'Collection', 'bulk', 'sandbox', 'Payer ' || g, lpad(g::text, 10, '0'),
        timestamp '2026-01-01' + g * interval '1 second', timestamp '2026-01-01' + g * interval '1 second'
      FROM generate_series(1, ${count}) g, wallet w
      RETURNING "id", "walletId", "amount", "reference"
    ),
    entries AS (
      INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta")
      SELECT "walletId", "id", 'credit', "amount", 0 FROM created
    ),
    payments AS (
      INSERT INTO "InboundPayment" ("provider", "providerReference", "amount", "currency", "status", "workspaceId", "ledgerTransactionId", "updatedAt")
      SELECT 'sandbox', "reference", "amount", 'NGN', 'credited', ${large.workspaceId}, "id", now() FROM created
    )
    UPDATE "Wallet" SET "balance" = "balance" + (SELECT sum("amount") FROM created) WHERE "id" = (SELECT "id" FROM wallet)`;

  // The gateway runs in this process: the heap it keeps live halfway through the export, after a full collection, is what it holds.
  const heapBefore = liveHeap();
  let heapHalfway = 0;
  const res = await fetch(`${gw.url}/transactions/export`, { headers: { authorization: `Bearer ${large.token}` } });
  expect(res.status).toBe(200);
  // Read as it arrives, keeping only the first and last lines and a count.
  let lines = 0;
  let first = '';
  let tail = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const text = tail + decoder.decode(chunk, { stream: true });
    const parts = text.split('\r\n');
    tail = parts.pop()!;
    if (!first && parts.length > 1) first = parts[1]!;
    lines += parts.length;
    if (!heapHalfway && lines >= count / 2) heapHalfway = liveHeap();
  }
  expect(tail).toBe('');
  expect(lines).toBe(count + 1);
  expect(first.startsWith(`crd_bulk_${count},2026-01-02T03:46:40.000Z,credit,in,collection,collection_va,completed,NGN,1.000001,0.000000,`)).toBe(true);
  // Held whole, the rows alone would take well over 100 MB; streamed, a page (1,000 rows) at a time.
  expect((heapHalfway - heapBefore) / 2 ** 20).toBeLessThan(40);
}, 120_000);
