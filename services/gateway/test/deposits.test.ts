// Risk: a deposit channel answering differently from the API's
// per-channel table (status, payload, exact messages), a second account opened
// for one reference or one workspace currency, a database id leaking, a rail
// failure half-writing, or one workspace reading another's collections.
import { createHmac } from 'node:crypto';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

// The sandbox notification route exists only with a secret of the deployment's own (there is no default).
const SANDBOX_SECRET = 'test-only-sandbox-notification-secret-5f1c';
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let key: string;
let workspaceId: number;
let workspaceName: string;

beforeAll(async () => {
  gw = await startTestGateway({ COLLECTION_SANDBOX_SECRET: SANDBOX_SECRET });
  const created = await createWorkspaceWithKey(gw.env.db, { name: 'Acme Deposits Ltd' });
  key = created.key;
  workspaceId = created.workspace.id;
  workspaceName = created.workspace.name;
});
afterAll(() => gw.close());

const deposit = (body: unknown, token = key) => call(gw.url, 'POST', '/v1/deposits', { token, body });
const events = (event: string, wsId = workspaceId) => gw.env.db.outboxEvent.findMany({ where: { workspaceId: wsId, event }, orderBy: { id: 'asc' } });
const expectInvalid = (res: { status: number; body: any }, message: string | RegExp) => {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  if (typeof message === 'string') expect(res.body.error.message).toBe(message);
  else expect(res.body.error.message).toMatch(message);
};

describe('POST /v1/deposits, per channel', () => {
  test('collection_va: 201 pending, a one-off account with expires_at (default 3600 s), the business as holder, no id', async () => {
    const before = Date.now();
    const res = await deposit({ channel: 'collection_va', amount: 1500 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(['account', 'channel', 'status']);
    expect(res.body.data).toMatchObject({ channel: 'collection_va', status: 'pending' });
    const account = res.body.data.account;
    expect(Object.keys(account).sort()).toEqual(['account_name', 'account_number', 'bank', 'bank_code', 'expires_at']);
    expect(account.account_number).toMatch(/^\d{10}$/);
    expect(account.account_name).toBe(workspaceName);
    expect(account).toMatchObject({ bank: 'Cowrie Sandbox Bank', bank_code: '999' });
    const expires = Date.parse(account.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    expect(JSON.stringify(res.body.data)).not.toMatch(/"id"/);
    const row = await gw.env.db.collection.findFirstOrThrow({ where: { workspaceId, accountNumber: account.account_number } });
    expect(row).toMatchObject({ status: 'pending', currency: 'NGN', source: 'deposit', customerName: null });
    expect(row.amount.toFixed(6)).toBe('1500.000000');
  });

  test('collection_va honours expires_in (minimum 60) and accepts a lowercase currency', async () => {
    const before = Date.now();
    const res = await deposit({ channel: 'collection_va', amount: '250.5', currency: 'ngn', expires_in: 60 });
    expect(res.status).toBe(201);
    const expires = Date.parse(res.body.data.account.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000 + 1000);
  });

  test('a repeated reference returns the same one-off account; another reference opens another', async () => {
    const first = await deposit({ channel: 'collection_va', amount: 100, reference: 'order-42' });
    const again = await deposit({ channel: 'collection_va', amount: 100, reference: 'order-42' });
    const other = await deposit({ channel: 'collection_va', amount: 100, reference: 'order-43' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    expect(other.body.data.account.account_number).not.toBe(first.body.data.account.account_number);
    expect(await gw.env.db.collection.count({ where: { workspaceId, reference: 'order-42' } })).toBe(1);
  });

  test('concurrent requests with one reference open one account', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => deposit({ channel: 'collection_va', amount: 10, reference: 'race-ref' })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.data.account.account_number)).size).toBe(1);
    expect(await gw.env.db.collection.count({ where: { workspaceId, reference: 'race-ref' } })).toBe(1);
  });

  test('a repeated reference after expires_at is 400 invalid_request on reference naming the expiry; collection.expired is sent once; nothing is opened', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Expired Repeat Co' });
    const first = await deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-expired', expires_in: 120 }, k);
    expect(first.status).toBe(201);
    const row = await gw.env.db.collection.findFirstOrThrow({ where: { workspaceId: workspace.id, reference: 'dep-expired' } });
    // The minimum expires_in is 60 s: move the expiry into the past instead of waiting.
    const expiresAt = new Date(Date.now() - 1000);
    await gw.env.db.collection.update({ where: { id: row.id }, data: { expiresAt } });
    const repeats = await Promise.all(Array.from({ length: 3 }, () => deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-expired' }, k)));
    for (const res of repeats) {
      expectInvalid(res, `The one-off account of reference dep-expired expired at ${expiresAt.toISOString()}; use a new reference`);
      expect(res.body.error.details).toEqual({ field: 'reference' });
    }
    expect(await gw.env.db.collection.count({ where: { workspaceId: workspace.id } })).toBe(1);
    const read = await call(gw.url, 'GET', `/v1/collections/${row.id}`, { token: k });
    expect(read.body.data.status).toBe('expired');
    expect(await events('collection.expired', workspace.id)).toHaveLength(1);
  });

  test('a repeated reference after the account was paid is 400 invalid_request on reference', async () => {
    const { key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Paid Repeat Co' });
    const account = (await deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-paid' }, k)).body.data.account;
    const raw = JSON.stringify({ reference: 'sbx-paid-repeat', account_number: account.account_number, amount: 5000 });
    const signature = createHmac('sha512', SANDBOX_SECRET).update(raw).digest('hex');
    const paid = await call(gw.url, 'POST', '/rails/sandbox/notifications', { rawBody: raw, headers: { 'x-sandbox-signature': signature } });
    expect(paid.body.data).toMatchObject({ matched: true, status: 'credited' });
    const again = await deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-paid' }, k);
    expectInvalid(again, 'The one-off account of reference dep-paid was already paid; use a new reference');
    expect(again.body.error.details).toEqual({ field: 'reference' });
  });

  test('a repeated reference for another amount is 400 invalid_request on reference and writes nothing', async () => {
    await deposit({ channel: 'collection_va', amount: 5000, reference: 'dep-amount' });
    const before = await gw.env.db.collection.count();
    const again = await deposit({ channel: 'collection_va', amount: 999, reference: 'dep-amount' });
    expectInvalid(again, 'reference dep-amount names a one-off account for 5000.000000 NGN; use a new reference for another amount');
    expect(again.body.error.details).toEqual({ field: 'reference' });
    expect(await gw.env.db.collection.count()).toBe(before);
  });

  test('reserved_va: 201 active, an account without expiry; the same account twice, created once with one event', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Reserved Co' });
    const first = await deposit({ channel: 'reserved_va' }, k);
    const second = await deposit({ channel: 'reserved_va', amount: 5, expires_in: 1 }, k);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body.data).sort()).toEqual(['account', 'channel', 'status']);
    expect(first.body.data).toMatchObject({ channel: 'reserved_va', status: 'active' });
    expect(Object.keys(first.body.data.account).sort()).toEqual(['account_name', 'account_number', 'bank', 'bank_code']);
    expect(first.body.data.account.account_name).toBe('Reserved Co');
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    const created = await events('reserved_account.created', workspace.id);
    expect(created).toHaveLength(1);
    expect(created[0]!.payload).toMatchObject({
      reference: 'business_ngn',
      account_number: first.body.data.account.account_number,
      bank: 'Cowrie Sandbox Bank',
      customer: { name: 'Reserved Co', email: null },
    });
    expect(typeof (created[0]!.payload as any).id).toBe('number');
  });

  test('concurrent first use of reserved_va creates one reserved account', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Race Co' });
    const results = await Promise.all(Array.from({ length: 8 }, () => deposit({ channel: 'reserved_va' }, k)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.data.account.account_number)).size).toBe(1);
    expect(await gw.env.db.reservedAccount.count({ where: { workspaceId: workspace.id } })).toBe(1);
    expect(await events('reserved_account.created', workspace.id)).toHaveLength(1);
  });

  test('open_banking (coming_soon by default): 400 with the exact message', async () => {
    expectInvalid(await deposit({ channel: 'open_banking' }), 'Open banking is not available yet.');
  });

  test('card: always 400 with the exact message, whatever the rest of the body', async () => {
    const message = 'Card deposits are not available yet. No card provider is configured.';
    expectInvalid(await deposit({ channel: 'card' }), message);
    expectInvalid(await deposit({ channel: 'card', currency: 'XYZ', amount: 'lots' }), message);
  });
});

describe('POST /v1/deposits, errors', () => {
  test.each([
    ['an unknown channel', { channel: 'crypto' }, 'channel must be one of card, collection_va, reserved_va, open_banking'],
    ['a missing channel', { amount: 10 }, 'channel is required'],
    ['a non-string channel', { channel: 7 }, /channel must be one of/],
    [
      'a currency the channel does not support',
      { channel: 'collection_va', amount: 10, currency: 'EUR' },
      'EUR is not supported by the collection_va channel (supported: NGN)',
    ],
    ['a currency the reserved channel does not support', { channel: 'reserved_va', currency: 'USD' }, /USD is not supported by the reserved_va channel/],
    ['a malformed currency', { channel: 'collection_va', amount: 10, currency: 'naira!' }, /currency must be/],
    ['a missing amount for collection_va', { channel: 'collection_va' }, 'amount is required for the collection_va channel'],
    ['an amount below 1', { channel: 'collection_va', amount: 0.99 }, 'amount must be at least 1'],
    ['a negative amount', { channel: 'collection_va', amount: -5 }, /amount must not be negative/],
    ['a non-numeric amount', { channel: 'collection_va', amount: 'ten' }, /amount must be a number/],
    ['more than 6 decimal places', { channel: 'collection_va', amount: 1.1234567 }, /at most 6 decimal places/],
    ['expires_in below 60', { channel: 'collection_va', amount: 10, expires_in: 59 }, 'expires_in must be at least 60'],
    ['a fractional expires_in', { channel: 'collection_va', amount: 10, expires_in: 90.5 }, /expires_in must be an integer/],
    ['a string expires_in', { channel: 'collection_va', amount: 10, expires_in: '600' }, /expires_in must be an integer/],
    ['an empty reference', { channel: 'collection_va', amount: 10, reference: '  ' }, 'reference must not be empty'],
  ])('%s is 400 invalid_request', async (_name, body, message) => {
    const before = await gw.env.db.collection.count();
    expectInvalid(await deposit(body), message);
    expect(await gw.env.db.collection.count()).toBe(before);
  });

  test('a body that is not a JSON object is 400', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, rawBody: '[1]' });
    expectInvalid(res, /JSON object/);
  });

  test('a rail failure while opening is 503 provider_error and writes nothing', async () => {
    const before = await gw.env.db.collection.count();
    const res = await deposit({ channel: 'collection_va', amount: 10, reference: 'rail_error_1' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_error');
    expect(await gw.env.db.collection.count()).toBe(before);
  });

  test('scopes: deposits need collections:write; no key is 401', async () => {
    const { key: readOnly } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] });
    const res = await deposit({ channel: 'collection_va', amount: 10 }, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect((await call(gw.url, 'POST', '/v1/deposits', { body: { channel: 'collection_va', amount: 10 } })).status).toBe(401);
  });
});

describe('collections surface', () => {
  const create = (body: unknown, token = key) => call(gw.url, 'POST', '/v1/collections', { token, body });

  test('POST creates a customer collection (201); GET reads it; a repeated reference returns it (200)', async () => {
    const res = await create({ amount: 2500.75, customer_name: 'Ada Obi', customer_email: 'Ada@Example.com', reference: 'inv-1', expires_in: 600 });
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(c).toMatchObject({
      reference: 'inv-1',
      status: 'pending',
      currency: 'NGN',
      amount: '2500.750000',
      amount_paid: null,
      customer: { name: 'Ada Obi', email: 'ada@example.com' },
      paid_at: null,
      provider: 'sandbox',
      provider_reference: null,
    });
    expect(typeof c.id).toBe('number');
    expect(c.account).toMatchObject({ bank: 'Cowrie Sandbox Bank', account_name: `${workspaceName} / Ada Obi` });
    expect(c.account.expires_at).toBe(c.expires_at);
    const read = await call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(c);
    const again = await create({ amount: 2500.75, customer_name: 'Ada Obi', customer_email: 'ada@example.com', reference: 'inv-1' });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(c.id);
  });

  test('a repeated reference after expiry answers the collection as it stands: 200 expired, collection.expired sent once', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Collections Repeat Co' });
    const body = { amount: 40, customer_name: 'Ife', customer_email: 'ife@example.com', reference: 'inv-expired', expires_in: 60 };
    const c = (await create(body, k)).body.data;
    await gw.env.db.collection.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const repeats = await Promise.all(Array.from({ length: 3 }, () => create(body, k)));
    for (const r of repeats) {
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ id: c.id, status: 'expired' });
    }
    expect(await events('collection.expired', workspace.id)).toHaveLength(1);
    expect(await gw.env.db.collection.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });

  test.each([
    ['a missing customer_email', { amount: 10, customer_name: 'A' }, 'customer_email is required'],
    ['an invalid customer_email', { amount: 10, customer_name: 'A', customer_email: 'nope' }, /customer_email/],
    ['a missing customer_name', { amount: 10, customer_email: 'a@b.co' }, 'customer_name is required'],
    ['a missing amount', { customer_name: 'A', customer_email: 'a@b.co' }, 'amount is required'],
    ['an amount below 1', { amount: 0, customer_name: 'A', customer_email: 'a@b.co' }, 'amount must be at least 1'],
    ['expires_in below 60', { amount: 5, customer_name: 'A', customer_email: 'a@b.co', expires_in: 10 }, 'expires_in must be at least 60'],
    ['an unsupported currency', { amount: 5, customer_name: 'A', customer_email: 'a@b.co', currency: 'GBP' }, /GBP is not supported/],
  ])('%s is 400', async (_name, body, message) => {
    expectInvalid(await create(body), message);
  });

  test('a rail failure is 503 provider_error', async () => {
    const res = await create({ amount: 5, customer_name: 'A', customer_email: 'a@b.co', reference: 'rail_error_c' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_error');
  });

  test("another workspace's collection, an unknown id and a bad id", async () => {
    const { key: otherKey } = await createWorkspaceWithKey(gw.env.db, { name: 'Other' });
    const c = (await create({ amount: 5, customer_name: 'B', customer_email: 'b@b.co' })).body.data;
    const other = await call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: otherKey });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await call(gw.url, 'GET', '/v1/collections/999999', { token: key })).status).toBe(404);
    expect((await call(gw.url, 'GET', '/v1/collections/abc', { token: key })).status).toBe(400);
    expect((await call(gw.url, 'GET', '/v1/collections/99999999999', { token: key })).status).toBe(400);
  });

  test('scopes: POST needs collections:write, GET needs read', async () => {
    const { key: writeOnly } = await createWorkspaceWithKey(gw.env.db, { scopes: ['collections:write'] });
    const { key: readOnly } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] });
    const c = (await create({ amount: 5, customer_name: 'C', customer_email: 'c@b.co' }, writeOnly)).body.data;
    expect((await create({ amount: 5, customer_name: 'C', customer_email: 'c@b.co' }, readOnly)).status).toBe(403);
    expect((await call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: writeOnly })).status).toBe(403);
  });

  test('a pending collection read after expiry becomes expired and emits collection.expired exactly once', async () => {
    const c = (await create({ amount: 75, customer_name: 'D', customer_email: 'd@b.co', reference: 'to-expire', expires_in: 60 })).body.data;
    const fresh = await call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: key });
    expect(fresh.body.data.status).toBe('pending');
    expect(await events('collection.expired')).toHaveLength(0);
    // The minimum expires_in is 60 s: move the expiry into the past instead of waiting.
    await gw.env.db.collection.update({ where: { id: c.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const reads = await Promise.all(Array.from({ length: 5 }, () => call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: key })));
    for (const r of reads) expect(r.body.data.status).toBe('expired');
    const again = await call(gw.url, 'GET', `/v1/collections/${c.id}`, { token: key });
    expect(again.body.data.status).toBe('expired');
    const expired = (await events('collection.expired')).filter((e) => (e.payload as any).id === c.id);
    expect(expired).toHaveLength(1);
    expect(expired[0]!.payload).toMatchObject({ id: c.id, reference: 'to-expire', amount: '75.000000', account_number: c.account.account_number });
  });
});

describe('reserved-accounts surface', () => {
  const create = (body: unknown, token = key) => call(gw.url, 'POST', '/v1/reserved-accounts', { token, body });

  test('one per customer: 201 with reserved_account.created, then 200 with the same account; list and read', async () => {
    const res = await create({ customer_name: 'Chidi Eze', customer_email: 'chidi@example.com', reference: 'cust-chidi' });
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a).toMatchObject({
      reference: 'cust-chidi',
      holder: 'customer',
      status: 'active',
      currency: 'NGN',
      customer: { name: 'Chidi Eze', email: 'chidi@example.com' },
    });
    expect(a.account).toMatchObject({ bank: 'Cowrie Sandbox Bank', account_name: `${workspaceName} / Chidi Eze` });
    expect(a.account.expires_at).toBeUndefined();
    const again = await create({ customer_name: 'Chidi Eze', customer_email: 'CHIDI@example.com' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(a);
    const evts = (await events('reserved_account.created')).filter((e) => (e.payload as any).id === a.id);
    expect(evts).toHaveLength(1);
    expect(evts[0]!.payload).toMatchObject({
      id: a.id,
      reference: 'cust-chidi',
      account_number: a.account.account_number,
      bank: 'Cowrie Sandbox Bank',
      customer: { name: 'Chidi Eze', email: 'chidi@example.com' },
    });

    const list = await call(gw.url, 'GET', '/v1/reserved-accounts?limit=500', { token: key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: any) => r.id)).toContain(a.id);
    const filtered = await call(gw.url, 'GET', '/v1/reserved-accounts?customer_email=chidi@example.com', { token: key });
    expect(filtered.body.data).toEqual([a]);
    const read = await call(gw.url, 'GET', `/v1/reserved-accounts/${a.id}`, { token: key });
    expect(read.body.data).toEqual(a);
  });

  test('a reference reused for another customer is 400; a missing customer field is 400', async () => {
    await create({ customer_name: 'E', customer_email: 'e@example.com', reference: 'taken-ref' });
    expectInvalid(
      await create({ customer_name: 'F', customer_email: 'f@example.com', reference: 'taken-ref' }),
      'reference is already used by another reserved account',
    );
    expectInvalid(await create({ customer_name: 'F' }), 'customer_email is required');
  });

  test("another workspace's reserved account is 404, and lists are per workspace", async () => {
    const a = (await create({ customer_name: 'G', customer_email: 'g@example.com' })).body.data;
    const { key: otherKey } = await createWorkspaceWithKey(gw.env.db, { name: 'Other 2' });
    expect((await call(gw.url, 'GET', `/v1/reserved-accounts/${a.id}`, { token: otherKey })).status).toBe(404);
    expect((await call(gw.url, 'GET', '/v1/reserved-accounts', { token: otherKey })).body.data).toEqual([]);
  });

  test('a rail failure is 503 and opens nothing; scopes are enforced', async () => {
    const before = await gw.env.db.reservedAccount.count();
    const res = await create({ customer_name: 'H', customer_email: 'h@example.com', reference: 'rail_error_r' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_error');
    expect(await gw.env.db.reservedAccount.count()).toBe(before);
    const { key: readOnly } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] });
    expect((await create({ customer_name: 'H', customer_email: 'h@example.com' }, readOnly)).status).toBe(403);
    const { key: writeOnly } = await createWorkspaceWithKey(gw.env.db, { scopes: ['collections:write'] });
    expect((await call(gw.url, 'GET', '/v1/reserved-accounts', { token: writeOnly })).status).toBe(403);
  });
});

describe('sandbox notifications', () => {
  const post = (rawBody: string, signature?: string) =>
    call(gw.url, 'POST', '/rails/sandbox/notifications', { rawBody, headers: signature ? { 'x-sandbox-signature': signature } : {} });
  const sign = (raw: string) => createHmac('sha512', gw.env.config.COLLECTION_SANDBOX_SECRET!).update(raw).digest('hex');

  test('a signed notification credits the matched collection; a bad or missing signature is 401 and records nothing', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Sandbox Notify' });
    const account = (await deposit({ channel: 'collection_va', amount: 300 }, k)).body.data.account;
    const raw = JSON.stringify({ reference: 'sbx-notify-1', account_number: account.account_number, amount: 300 });
    const bad = await post(raw, sign(raw + 'x'));
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('unauthorized');
    expect((await post(raw)).status).toBe(401);
    expect(await gw.env.db.inboundPayment.count({ where: { providerReference: 'sbx-notify-1' } })).toBe(0);
    const ok = await post(raw, sign(raw));
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ received: true, matched: true, duplicate: false, status: 'credited' });
    const wallet = await gw.env.db.wallet.findUniqueOrThrow({ where: { workspaceId_currency: { workspaceId: workspace.id, currency: 'NGN' } } });
    expect(wallet.balance.toFixed(6)).toBe('300.000000');
  });

  test('no route without the rail and its own secret: a deployment without them answers 404, whatever is signed', async () => {
    const raw = JSON.stringify({ reference: 'sbx-no-route', account_number: '9000000001', amount: 5 });
    const bare = await startTestGateway();
    try {
      expect(bare.env.config.COLLECTION_SANDBOX_SECRET).toBeUndefined();
      const signedWithOldDefault = createHmac('sha512', 'cowrie-dev-only-sandbox-notification-secret').update(raw).digest('hex');
      const res = await call(bare.url, 'POST', '/rails/sandbox/notifications', { rawBody: raw, headers: { 'x-sandbox-signature': signedWithOldDefault } });
      expect(res.status).toBe(404);
      // The Paystack route exists only when Paystack is the collection rail.
      expect((await call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody: '{}', headers: { 'x-paystack-signature': 'x' } })).status).toBe(404);
      expect(await bare.env.db.inboundPayment.count()).toBe(0);
    } finally {
      await bare.close();
    }
  });

  test('paid_at: a transfer paid before expires_at and notified after it is credited; a malformed or future paid_at is 400 and records nothing', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Sandbox Paid At' });
    const opened = await deposit({ channel: 'collection_va', amount: 410, expires_in: 60 }, k);
    const row = await gw.env.db.collection.findFirstOrThrow({ where: { workspaceId: workspace.id } });
    // The minimum expires_in is 60 s: move the expiry into the past instead of waiting.
    const expiresAt = new Date(Date.now() - 4000);
    await gw.env.db.collection.update({ where: { id: row.id }, data: { expiresAt } });
    const body = (reference: string, paid_at: unknown) =>
      JSON.stringify({ reference, account_number: opened.body.data.account.account_number, amount: 410, paid_at });
    for (const [reference, paidAt] of [
      ['sbx-paid-at-local', '2030-01-01T10:00:00'],
      ['sbx-paid-at-word', 'this morning'],
      ['sbx-paid-at-future', new Date(Date.now() + 10 * 60_000).toISOString()],
    ] as const) {
      const raw = body(reference, paidAt);
      const res = await post(raw, sign(raw));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^Unreadable notification: paid_at/);
      expect(await gw.env.db.inboundPayment.count({ where: { providerReference: reference } })).toBe(0);
    }
    const late = body('sbx-paid-in-time', new Date(expiresAt.getTime() - 2000).toISOString().replace('Z', '+00:00'));
    expect((await post(late, sign(late))).body.data).toMatchObject({ matched: true, status: 'credited' });
    const read = await call(gw.url, 'GET', `/v1/collections/${row.id}`, { token: k });
    expect(read.body.data).toMatchObject({ status: 'successful', paid_at: new Date(expiresAt.getTime() - 2000).toISOString() });
  });

  test('amounts are read from their digits, as on /v1: a JSON number a double cannot hold is credited exactly or refused, never rounded', async () => {
    const { workspace, key: k } = await createWorkspaceWithKey(gw.env.db, { name: 'Sandbox Exact Amounts' });
    const balance = async () =>
      (await gw.env.db.wallet.findUniqueOrThrow({ where: { workspaceId_currency: { workspaceId: workspace.id, currency: 'NGN' } } })).balance.toFixed(6);
    const small = (await deposit({ channel: 'collection_va', amount: 2500 }, k)).body.data.account.account_number;
    // Written as text: JSON.stringify would send the double's digits, not these.
    const raw = (reference: string, accountNumber: string, amount: string) =>
      `{"reference":"${reference}","account_number":"${accountNumber}","amount":${amount}}`;
    for (const [reference, amount] of [
      ['sbx-exact-tiny-fraction', '2500.0000000000001'],
      ['sbx-exact-tiny-fraction-string', '"2500.0000000000001"'],
      ['sbx-exact-many-decimals', '2500.000000000'.padEnd(30, '1')],
    ] as const) {
      const body = raw(reference, small, amount);
      const res = await post(body, sign(body));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Unreadable notification: amount must have at most 6 decimal places');
      expect(await gw.env.db.inboundPayment.count({ where: { providerReference: reference } })).toBe(0);
    }
    expect(await balance()).toBe('0.000000');

    const large = (await deposit({ channel: 'collection_va', amount: '12345678901.123456' }, k)).body.data.account.account_number;
    const rounded = raw('sbx-exact-nine-decimals', large, '12345678901.123456789');
    const refused = await post(rounded, sign(rounded));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('Unreadable notification: amount must have at most 6 decimal places');
    // 17 significant digits: a double reads 12345678901.123455; the digits are what the payer sent.
    const exact = raw('sbx-exact-17-digits', large, '12345678901.123456');
    const credited = await post(exact, sign(exact));
    expect(credited.body.data).toMatchObject({ matched: true, status: 'credited' });
    expect(await balance()).toBe('12345678901.123456');
    const recorded = await gw.env.db.inboundPayment.findUniqueOrThrow({
      where: { provider_providerReference: { provider: 'sandbox', providerReference: 'sbx-exact-17-digits' } },
    });
    expect(recorded.amount.toFixed(6)).toBe('12345678901.123456');
    // The notification is kept with the digits sent, as a string.
    expect(recorded.raw).toMatchObject({ amount: '12345678901.123456' });
  });

  test('a signed but malformed notification is 400', async () => {
    const raw = JSON.stringify({ reference: 'x', account_number: '12', amount: 1 });
    expect((await post(raw, sign(raw))).status).toBe(400);
    expect((await post('not json', sign('not json'))).status).toBe(400);
  });
});
