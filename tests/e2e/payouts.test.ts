// Risk: a payout that answers the wrong status or shape, moves money it should
// not (a failed rail call keeping the hold, a duplicate key paying twice), or
// lets bad input reach the ledger. Sandbox rail, real worker, Postgres, Redis.
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { LEDGER_FIELDS, fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let key: string;
let workspaceId: number;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const post = (path: string, body: unknown, token = key) => call(stack.url, 'POST', path, { token, body });
const get = (path: string, token = key) => call(stack.url, 'GET', path, { token });
const balance = async (currency = 'NGN', id = workspaceId) => (await findWallet(stack.env.db, id, currency))!;

async function freshWorkspace(amount = '1000', currency = 'NGN') {
  const ws = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, ws.workspace.id, currency, amount);
  return { key: ws.key, workspaceId: ws.workspace.id };
}

beforeAll(async () => {
  stack = await startPayoutStack();
  ({ key, workspaceId } = await freshWorkspace('1000'));
});
afterAll(() => stack.close());

describe('POST /v1/transfers', () => {
  test('a transfer to an ordinary account completes: 201, every ledger field, hold settled, event recorded', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('1000');
    const res = await post('/v1/transfers', { currency: 'ngn', amount: 250.5, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' }, k);
    expect(res.status).toBe(201);
    const t = res.body.data;
    expect(Object.keys(t).sort()).toEqual(LEDGER_FIELDS);
    expect(t).toMatchObject({
      type: 'debit',
      direction: 'out',
      category: 'send',
      channel: 'transfer',
      status: 'completed',
      businessId: ws,
      currency: 'NGN',
      amount: '250.500000',
      fees: '0.000000',
      title: 'Transfer to Ada Obi',
      description: 'Cowrie transfer',
      provider: 'sandbox',
      counterpartyName: 'Ada Obi',
      counterpartyAccount: '0123456789',
      counterpartyBank: 'Guaranty Trust Bank',
      counterpartyEmail: null,
    });
    expect(t.id).toEqual(expect.any(Number));
    expect(t.reference).toMatch(/^snd_[0-9a-f]{24}$/);
    expect(t.idempotencyKey).toBe(t.reference);
    expect(t.providerReference).toMatch(/^SBX_/);
    expect(t.metadata.provider).toBe('sandbox');
    expect(t.metadata.raw).toMatchObject({ status: 'success', reference: t.reference });
    expect(t.createdAt).toMatch(ISO);
    expect(t.updatedAt).toMatch(ISO);
    const wallet = await balance('NGN', ws);
    expect(t.walletId).toBe(wallet.id);
    expect(wallet.balance.toFixed(6)).toBe('749.500000');
    expect(wallet.held.toFixed(6)).toBe('0.000000');
    expect((await auditWallet(stack.env.db, wallet.id)).consistent).toBe(true);
    const events = await stack.env.db.outboxEvent.findMany({ where: { workspaceId: ws } });
    expect(events.map((e) => e.event)).toEqual(['transfer.completed']);
    expect(events[0]!.payload).toMatchObject({ id: t.id, status: 'completed', reference: t.reference });
  });

  test('the sandbox resolves a missing account name; narration and bank_name are kept', async () => {
    const res = await post('/v1/transfers', {
      currency: 'NGN',
      amount: '10',
      account_number: '1234567890',
      bank_code: '058',
      bank_name: 'GTBank Plc',
      narration: 'Rent for May',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'completed', description: 'Rent for May', counterpartyBank: 'GTBank Plc', title: 'Transfer to 1234567890' });
    expect(res.body.data.counterpartyName).toEqual(expect.stringMatching(/^[A-Z][a-z]+ [A-Z][a-z]+$/));
    expect(res.body.data.metadata.bank_name).toBe('GTBank Plc');
  });

  test('counterpartyBank falls back to the bank code when the code is not on the bank list', async () => {
    const res = await post('/v1/transfers', { currency: 'NGN', amount: 1, account_number: '1234567890', bank_code: '99999' });
    expect(res.status).toBe(201);
    expect(res.body.data.counterpartyBank).toBe('99999');
  });

  test('account 0000000001: the rail reports a failure → 201 failed, hold released, transfer.failed recorded', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('100');
    const res = await post('/v1/transfers', { currency: 'NGN', amount: 40, account_number: '0000000001', bank_code: '058' }, k);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'failed', amount: '40.000000' });
    expect(res.body.data.metadata.raw).toMatchObject({ status: 'failed' });
    const wallet = await balance('NGN', ws);
    expect(wallet.balance.toFixed(6)).toBe('100.000000');
    expect(wallet.held.toFixed(6)).toBe('0.000000');
    expect((await auditWallet(stack.env.db, wallet.id)).consistent).toBe(true);
    const events = await stack.env.db.outboxEvent.findMany({ where: { workspaceId: ws } });
    expect(events.map((e) => e.event)).toEqual(['transfer.failed']);
  });

  test('account 0000000002: the rail throws → 502 provider_error, the failed row is kept, hold released', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('100');
    const res = await post('/v1/transfers', { currency: 'NGN', amount: 40, account_number: '0000000002', bank_code: '058' }, k);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_error');
    expect(res.body.error.details.transaction).toMatchObject({ status: 'failed', counterpartyAccount: '0000000002' });
    const listed = await get('/v1/transactions?status=failed', k);
    expect(listed.body.data.map((t: any) => t.id)).toContain(res.body.error.details.transaction.id);
    const wallet = await balance('NGN', ws);
    expect(wallet.balance.toFixed(6)).toBe('100.000000');
    expect(wallet.held.toFixed(6)).toBe('0.000000');
    expect((await auditWallet(stack.env.db, wallet.id)).consistent).toBe(true);
    expect((await stack.env.db.outboxEvent.findMany({ where: { workspaceId: ws } })).map((e) => e.event)).toEqual(['transfer.failed']);
  });

  test('insufficient available balance → 400 "Exceeds balance: <available> <currency>", nothing written', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('1000');
    const res = await post('/v1/transfers', { currency: 'NGN', amount: 1000.01, account_number: '0123456789', bank_code: '058' }, k);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: 'Exceeds balance: 1000.000000 NGN' });
    expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws, type: 'debit' } })).toBe(0);
  });

  test('pending holds are not available: the message reports the available balance', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('100');
    const wallet = await balance('NGN', ws);
    await stack.env.db.wallet.update({ where: { id: wallet.id }, data: { held: '30' } });
    const res = await post('/v1/transfers', { currency: 'NGN', amount: 80, account_number: '0123456789' }, k);
    expect(res.body.error.message).toBe('Exceeds balance: 70.000000 NGN');
    // The hold above had no payout behind it: put the wallet back as its entries say (the auditor checks at the end).
    await stack.env.db.wallet.update({ where: { id: wallet.id }, data: { held: '0' } });
  });

  test('a coming_soon currency → 501 coming_soon; an unknown currency → 400', async () => {
    for (const currency of ['USD', 'usdt', 'JPY']) {
      const res = await post('/v1/transfers', { currency, amount: 5, account_number: '0123456789' });
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('coming_soon');
    }
    const res = await post('/v1/transfers', { currency: 'XYZ', amount: 5, account_number: '0123456789' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: 'Unsupported currency: XYZ', details: { field: 'currency' } });
  });

  test('a sandbox currency (EUR) pays through the sandbox rail', async () => {
    const { key: k } = await freshWorkspace('50', 'EUR');
    const res = await post('/v1/transfers', { currency: 'eur', amount: 20, account_number: '0123456789' }, k);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ currency: 'EUR', status: 'completed', provider: 'sandbox' });
  });

  test('a missing wallet → 404 not_found, and no wallet is created', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('10');
    await stack.env.db.wallet.deleteMany({ where: { workspaceId: ws, currency: 'GBP' } });
    const res = await post('/v1/transfers', { currency: 'GBP', amount: 5, account_number: '0123456789' }, k);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(await stack.env.db.wallet.count({ where: { workspaceId: ws, currency: 'GBP' } })).toBe(0);
  });

  test('checks run in the documented order: currency, wallet, balance, then idempotency_key', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('10');
    await stack.env.db.wallet.deleteMany({ where: { workspaceId: ws, currency: 'GBP' } });
    // coming_soon before the wallet; the wallet before the balance
    expect((await post('/v1/transfers', { currency: 'USD', amount: 5, account_number: '0123456789' }, k)).status).toBe(501);
    expect((await post('/v1/transfers', { currency: 'GBP', amount: 1e9, account_number: '0123456789' }, k)).status).toBe(404);
    // the balance before the de-duplication: a known key with too little left is a 400
    const first = await post('/v1/transfers', { currency: 'NGN', amount: 8, account_number: '0123456789', idempotency_key: 'order-1' }, k);
    expect(first.status).toBe(201);
    const again = await post('/v1/transfers', { currency: 'NGN', amount: 8, account_number: '0123456789', idempotency_key: 'order-1' }, k);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe('Exceeds balance: 2.000000 NGN');
  });

  test('idempotency_key under concurrency: 10 identical requests make one transaction and one debit', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('100');
    const body = { currency: 'NGN', amount: 7, account_number: '0123456789', bank_code: '058', idempotency_key: 'invoice-42' };
    const results = await Promise.all(Array.from({ length: 10 }, () => post('/v1/transfers', body, k)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = new Set(results.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    expect(results[0]!.body.data.idempotencyKey).toBe('invoice-42');
    expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: ws, type: 'debit' } })).toBe(1);
    const wallet = await balance('NGN', ws);
    expect(wallet.balance.toFixed(6)).toBe('93.000000');
    expect((await auditWallet(stack.env.db, wallet.id)).consistent).toBe(true);
  });

  test('idempotency keys are scoped per workspace', async () => {
    const a = await freshWorkspace('10');
    const b = await freshWorkspace('10');
    const body = { currency: 'NGN', amount: 1, account_number: '0123456789', idempotency_key: 'shared-key' };
    const ra = await post('/v1/transfers', body, a.key);
    const rb = await post('/v1/transfers', body, b.key);
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(ra.body.data.id).not.toBe(rb.body.data.id);
    expect(rb.body.data.businessId).toBe(b.workspaceId);
  });

  test.each([
    ['amount below 1', { amount: 0.5 }, 'amount', /at least 1/],
    ['amount zero', { amount: 0 }, 'amount', /at least 1/],
    ['negative amount', { amount: -5 }, 'amount', /negative/],
    ['non-numeric amount', { amount: 'ten' }, 'amount', /number/],
    ['boolean amount', { amount: true }, 'amount', /number/],
    ['more than 6 decimals', { amount: 1.1234567 }, 'amount', /6 decimal/],
    ['absurdly large amount', { amount: 1e20 }, 'amount', /at most/],
    ['missing amount', { amount: undefined }, 'amount', /amount is required/],
    ['missing account_number', { account_number: undefined }, 'account_number', /account_number is required/],
    ['numeric account_number', { account_number: 123456789 }, 'account_number', /must be a string/],
    ['account_number with symbols', { account_number: "01'; DROP TABLE--" }, 'account_number', /letters and digits/],
    ['missing currency', { currency: undefined }, 'currency', /currency is required/],
    ['object narration', { narration: { x: 1 } }, 'narration', /narration/],
    ['overlong idempotency_key', { idempotency_key: 'k'.repeat(256) }, 'idempotency_key', /at most 255/],
  ])('bad input: %s → 400 naming the field, nothing written', async (_name, patch, field, message) => {
    const before = await stack.env.db.ledgerTransaction.count();
    const body = { currency: 'NGN', amount: 5, account_number: '0123456789', ...patch };
    const res = await post('/v1/transfers', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.field).toBe(field);
    expect(res.body.error.message).toMatch(message);
    expect(await stack.env.db.ledgerTransaction.count()).toBe(before);
  });

  test('scopes: transfers need payouts:write; reads need read', async () => {
    const readOnly = await createWorkspaceWithKey(stack.env.db, { scopes: ['read'] });
    const writeOnly = await createWorkspaceWithKey(stack.env.db, { scopes: ['payouts:write'] });
    const denied = await post('/v1/transfers', { currency: 'NGN', amount: 5, account_number: '0123456789' }, readOnly.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    expect((await post('/v1/withdrawals', { currency: 'NGN', amount: 5, beneficiary_id: 1 }, readOnly.key)).status).toBe(403);
    expect((await post('/v1/beneficiaries', { account_number: '0123456789', bank_code: '058', currency: 'NGN' }, readOnly.key)).status).toBe(403);
    for (const path of ['/v1/banks', '/v1/balances', '/v1/transactions', '/v1/recipients', '/v1/beneficiaries']) {
      expect((await get(path, writeOnly.key)).status).toBe(403);
      expect((await get(path, readOnly.key)).status).toBe(200);
    }
    expect((await post('/v1/banks/resolve', { account_number: '0123456789', bank_code: '058' }, writeOnly.key)).status).toBe(403);
    expect((await call(stack.url, 'POST', '/v1/transfers', { body: {} })).status).toBe(401);
  });
});

describe('beneficiaries and withdrawals', () => {
  test('a beneficiary without a name gets the resolved one; withdrawals to it are category and channel payout', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('500');
    const created = await post('/v1/beneficiaries', { account_number: '2233445566', bank_code: '044', currency: 'ngn' }, k);
    expect(created.status).toBe(201);
    const resolved = await post('/v1/banks/resolve', { account_number: '2233445566', bank_code: '044' }, k);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      name: resolved.body.data.accountName,
      account_number: '2233445566',
      bank_code: '044',
      bank_name: 'Access Bank',
      currency: 'NGN',
      active: true,
      created_at: expect.stringMatching(ISO),
    });
    const listed = await get('/v1/beneficiaries', k);
    expect(listed.body.data).toEqual([created.body.data]);

    const res = await post('/v1/withdrawals', { currency: 'NGN', amount: 120, beneficiary_id: created.body.data.id }, k);
    expect(res.status).toBe(201);
    const name = created.body.data.name;
    expect(res.body.data).toMatchObject({
      category: 'payout',
      channel: 'payout',
      type: 'debit',
      direction: 'out',
      status: 'completed',
      amount: '120.000000',
      title: `Withdrawal to ${name}`,
      description: `Withdrawal to ${name}`,
      counterpartyName: name,
      counterpartyAccount: '2233445566',
      counterpartyBank: 'Access Bank',
    });
    expect(res.body.data.reference).toMatch(/^snd_/);
    expect((await balance('NGN', ws)).balance.toFixed(6)).toBe('380.000000');
    const own = await post('/v1/withdrawals', { currency: 'NGN', amount: 1, beneficiary_id: created.body.data.id, narration: 'Payout May' }, k);
    expect(own.body.data.description).toBe('Payout May');
  });

  test('a named beneficiary keeps its name; unknown banks and unresolvable accounts are 400', async () => {
    const named = await post('/v1/beneficiaries', { name: 'Tolu Ade', account_number: '0987654321', bank_code: '057', currency: 'NGN' });
    expect(named.status).toBe(201);
    expect(named.body.data).toMatchObject({ name: 'Tolu Ade', bank_name: 'Zenith Bank' });
    const badBank = await post('/v1/beneficiaries', { name: 'X', account_number: '0987654321', bank_code: '000', currency: 'NGN' });
    expect(badBank.status).toBe(400);
    expect(badBank.body.error.details.field).toBe('bank_code');
    const unresolvable = await post('/v1/beneficiaries', { account_number: '12345', bank_code: '057', currency: 'NGN' });
    expect(unresolvable.status).toBe(400);
    expect(unresolvable.body.error.details.field).toBe('account_number');
    expect((await post('/v1/beneficiaries', { name: 'X', account_number: '0987654321', bank_code: '057', currency: 'USD' })).status).toBe(501);
    expect((await post('/v1/beneficiaries', { name: 'X', account_number: '0987654321', currency: 'NGN' })).body.error.details.field).toBe('bank_code');
  });

  test('an unknown, foreign or inactive beneficiary → 404 "Beneficiary not found"', async () => {
    const other = await freshWorkspace('10');
    const foreign = await post('/v1/beneficiaries', { name: 'Other', account_number: '0987654321', bank_code: '057', currency: 'NGN' }, other.key);
    const inactive = await post('/v1/beneficiaries', { name: 'Gone', account_number: '0987654321', bank_code: '057', currency: 'NGN' });
    await stack.env.db.beneficiary.update({ where: { id: inactive.body.data.id }, data: { active: false } });
    for (const id of [999999, foreign.body.data.id, inactive.body.data.id]) {
      const res = await post('/v1/withdrawals', { currency: 'NGN', amount: 1, beneficiary_id: id });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', message: 'Beneficiary not found' });
    }
  });

  test('withdrawal currency must match the beneficiary; magic accounts behave as for transfers', async () => {
    const { key: k, workspaceId: ws } = await freshWorkspace('100');
    const fails = await post('/v1/beneficiaries', { name: 'Fail', account_number: '0000000001', bank_code: '058', currency: 'NGN' }, k);
    const throws = await post('/v1/beneficiaries', { name: 'Throw', account_number: '0000000002', bank_code: '058', currency: 'NGN' }, k);
    await fund(stack.env.db, ws, 'EUR', '10');
    const mismatch = await post('/v1/withdrawals', { currency: 'EUR', amount: 1, beneficiary_id: fails.body.data.id }, k);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details.field).toBe('currency');
    const failed = await post('/v1/withdrawals', { currency: 'NGN', amount: 10, beneficiary_id: fails.body.data.id }, k);
    expect(failed.status).toBe(201);
    expect(failed.body.data).toMatchObject({ status: 'failed', channel: 'payout' });
    const thrown = await post('/v1/withdrawals', { currency: 'NGN', amount: 10, beneficiary_id: throws.body.data.id }, k);
    expect(thrown.status).toBe(502);
    expect(thrown.body.error.details.transaction).toMatchObject({ status: 'failed', channel: 'payout' });
    const wallet = await balance('NGN', ws);
    expect(wallet.balance.toFixed(6)).toBe('100.000000');
    expect(wallet.held.toFixed(6)).toBe('0.000000');
    expect((await post('/v1/withdrawals', { currency: 'NGN', amount: 10, beneficiary_id: '5' }, k)).body.error.details.field).toBe('beneficiary_id');
  });
});

describe('bank lookup', () => {
  test('GET /v1/banks lists camelCase bank records (country accepted) and caches the list in Redis', async () => {
    const res = await get('/v1/banks?country=GH');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(10);
    for (const bank of res.body.data) expect(Object.keys(bank).sort()).toEqual(['bankCode', 'bankName']);
    expect(res.body.data).toContainEqual({ bankCode: '058', bankName: 'Guaranty Trust Bank' });
    const ttl = await stack.env.redis.ttl(`${stack.env.config.REDIS_KEY_PREFIX}rails:banks:sandbox`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(stack.env.config.PAYOUT_BANKS_CACHE_TTL_SECONDS);
  });

  test('POST /v1/banks/resolve returns a stable name for a 10-digit account at a listed bank', async () => {
    const a = await post('/v1/banks/resolve', { account_number: '0123456789', bank_code: '058' });
    const b = await post('/v1/banks/resolve', { account_number: '0123456789', bank_code: '058', currency: 'NGN' });
    expect(a.status).toBe(200);
    expect(a.body.data).toEqual({ accountName: expect.any(String), accountNumber: '0123456789', bankCode: '058', bankName: 'Guaranty Trust Bank' });
    expect(b.body.data.accountName).toBe(a.body.data.accountName);
    const other = await post('/v1/banks/resolve', { account_number: '0123456788', bank_code: '058' });
    expect(other.body.data.accountName).not.toBe(a.body.data.accountName);
  });

  test('resolve refuses unknown banks, short numbers and bad currencies with 4xx', async () => {
    expect((await post('/v1/banks/resolve', { account_number: '0123456789', bank_code: '000' })).body.error.details.field).toBe('bank_code');
    expect((await post('/v1/banks/resolve', { account_number: '12345', bank_code: '058' })).body.error.details.field).toBe('account_number');
    expect((await post('/v1/banks/resolve', { bank_code: '058' })).body.error.message).toBe('account_number is required');
    expect((await post('/v1/banks/resolve', { account_number: '0123456789', bank_code: '058', currency: 'XYZ' })).status).toBe(400);
  });
});

describe('ledger views', () => {
  test('balances, transactions (newest first, cursor pages, filters) and recipients', async () => {
    const { key: k } = await freshWorkspace('100');
    const send = (amount: number, account: string, extra: object = {}) =>
      post('/v1/transfers', { currency: 'NGN', amount, account_number: account, bank_code: '058', ...extra }, k);
    await send(10, '1111111111', { account_name: 'First Name' });
    await send(5, '0000000001');
    await send(3, '1111111111', { account_name: 'Second Name' });
    await send(2, '2222222222');

    const balances = await get('/v1/balances', k);
    expect(balances.status).toBe(200);
    expect(balances.body.data.map((b: any) => b.currency)).toEqual(['NGN', 'EUR', 'GBP', 'USD', 'USDT', 'JPY']);
    expect(balances.body.data[0]).toEqual({ currency: 'NGN', available: '85.000000', pending: '0.000000', ledger: '85.000000', status: 'live' });

    const all = await get('/v1/transactions?limit=100', k);
    expect(all.body.data.map((t: any) => t.amount)).toEqual(['2.000000', '3.000000', '5.000000', '10.000000', '100.000000']);
    expect(all.body.meta.next_cursor).toBeNull();
    expect(all.body.data[4]).toMatchObject({ type: 'credit', channel: 'adjustment', status: 'completed' });

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/v1/transactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, k);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      pages.push(...page.body.data.map((t: any) => t.amount));
      cursor = page.body.meta.next_cursor;
    } while (cursor);
    expect(pages).toEqual(['2.000000', '3.000000', '5.000000', '10.000000', '100.000000']);

    const failed = await get('/v1/transactions?status=failed&currency=ngn', k);
    expect(failed.body.data.map((t: any) => t.counterpartyAccount)).toEqual(['0000000001']);
    expect((await get('/v1/transactions?currency=EUR', k)).body.data).toEqual([]);
    expect((await get('/v1/transactions?status=lost', k)).body.error.details.field).toBe('status');
    expect((await get('/v1/transactions?cursor=not-a-cursor', k)).body.error.details.field).toBe('cursor');
    expect((await get('/v1/transactions?limit=1000', k)).status).toBe(400);

    const recipients = await get('/v1/recipients', k);
    expect(recipients.status).toBe(200);
    expect(recipients.body.data).toEqual([
      expect.objectContaining({ account_number: '2222222222', bank_code: '058', bank_name: 'Guaranty Trust Bank', currency: 'NGN', payouts: 1 }),
      expect.objectContaining({ name: 'Second Name', account_number: '1111111111', payouts: 2 }),
    ]);
  });
});
