// Risk: the dashboard's deposit pages showing another workspace's accounts or
// transfers, losing a transfer that was held back, or a list that cannot be
// paged.
import { Decimal } from '@cowrie/core';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let a: Awaited<ReturnType<typeof signInNewWorkspace>>;
let b: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ PUBLIC_API_RATE_LIMIT: '1000' });
  a = await signInNewWorkspace(gw, 'Deposits A');
  b = await signInNewWorkspace(gw, 'Deposits B');
});
afterAll(() => gw.close());

const open = (apiKey: string, amount: number) =>
  call(gw.url, 'POST', '/v1/collections', { token: apiKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount } });

/** A transfer the collection rail reports into an account number. */
const transferIn = (accountNumber: string, amount: string, providerReference: string) =>
  receiveInboundTransfer(
    { db: gw.env.db },
    { provider: gw.env.config.COLLECTION_RAIL, providerReference, accountNumber, amount: new Decimal(amount), currency: 'NGN', raw: {} },
  );

test('a session lists its collections (paged, by status), reserved accounts and the transfers into them, credited or held back', async () => {
  const paid = (await open(a.apiKey, 700)).body.data;
  const unpaid = (await open(a.apiKey, 800)).body.data;
  const third = (await open(a.apiKey, 900)).body.data;
  const reserved = await call(gw.url, 'POST', '/v1/reserved-accounts', {
    token: a.apiKey,
    body: { customer_name: 'Bola Ade', customer_email: 'bola@example.com', currency: 'NGN' },
  });
  expect(reserved.status).toBe(201);
  expect(await transferIn(paid.account.account_number, '700', 'dash-in-1')).toMatchObject({ status: 'credited' });
  // The wrong amount: held back, with its reason.
  expect(await transferIn(unpaid.account.account_number, '50', 'dash-in-2')).toMatchObject({ status: 'unmatched' });
  expect(await transferIn(reserved.body.data.account.account_number, '1234.5', 'dash-in-3')).toMatchObject({ status: 'credited' });

  const get = (path: string, token = a.token) => call(gw.url, 'GET', path, { token });
  const collections = await get('/collections');
  expect(collections.status).toBe(200);
  expect(collections.body.data.map((c: { id: number }) => c.id)).toEqual([third.id, unpaid.id, paid.id]);
  expect(collections.body.data[2]).toMatchObject({ status: 'successful', amount: '700.000000', amount_paid: '700.000000' });
  const page = await get('/collections?limit=2');
  const rest = await get(`/collections?limit=2&cursor=${encodeURIComponent(page.body.meta.next_cursor)}`);
  expect([...page.body.data, ...rest.body.data].map((c: { id: number }) => c.id)).toEqual([third.id, unpaid.id, paid.id]);
  expect((await get('/collections?status=successful')).body.data.map((c: { id: number }) => c.id)).toEqual([paid.id]);

  const accounts = await get('/reserved-accounts');
  expect(accounts.body.data.map((r: { id: number }) => r.id)).toEqual([reserved.body.data.id]);

  const payments = await get('/deposit-payments');
  expect(payments.body.data.map((p: { provider_reference: string; status: string }) => [p.provider_reference, p.status])).toEqual([
    ['dash-in-3', 'credited'],
    ['dash-in-2', 'unmatched'],
    ['dash-in-1', 'credited'],
  ]);
  const heldBack = payments.body.data[1];
  expect(heldBack).toMatchObject({ collection_id: unpaid.id, amount: '50.000000', transaction_reference: null, reason: expect.any(String) });
  const credited = payments.body.data[2];
  const ledger = await call(gw.url, 'GET', `/v1/transactions?search=${credited.transaction_reference}`, { token: a.apiKey });
  expect(ledger.body.data.map((t: { amount: string }) => t.amount)).toEqual(['700.000000']);
  expect((await get(`/deposit-payments?reserved_account_id=${reserved.body.data.id}`)).body.data.map((p: { amount: string }) => p.amount)).toEqual([
    '1234.500000',
  ]);

  for (const bad of ['/collections?status=lost', '/collections?cursor=x', '/deposit-payments?collection_id=abc', '/reserved-accounts?currency=naira']) {
    const res = await get(bad);
    expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_request']);
  }
});

test("a user of workspace B sees none of A's collections, accounts or transfers; API keys do not open the session routes", async () => {
  const ofA = (await open(a.apiKey, 300)).body.data;
  await transferIn(ofA.account.account_number, '300', 'dash-in-private');
  const asB = async (path: string) => (await call(gw.url, 'GET', path, { token: b.token })).body.data as Array<{ id: number; provider_reference?: string }>;
  expect((await asB('/collections?limit=100')).map((c) => c.id)).not.toContain(ofA.id);
  expect(await asB(`/deposit-payments?collection_id=${ofA.id}`)).toEqual([]);
  expect((await asB('/deposit-payments?limit=100')).map((p) => p.provider_reference)).not.toContain('dash-in-private');
  expect(await asB('/reserved-accounts')).toEqual([]);
  expect((await call(gw.url, 'GET', '/collections', { token: a.apiKey })).status).toBe(401);
});
