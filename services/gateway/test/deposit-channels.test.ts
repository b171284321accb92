// Risk: deposit availability hard-coded in the route instead of read from the
// deployment's channel catalog (operator override), open banking answering
// without a redirect URL, or a rail outage half-writing a reserved account.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

const OPEN_BANKING_UNAVAILABLE = 'Open banking is not available yet.';
const CARD_UNAVAILABLE = 'Card deposits are not available yet. No card provider is configured.';

describe('an operator override: open banking live without a redirect URL, one-off accounts off, EUR reserved accounts, card "live"', () => {
  let gw: Awaited<ReturnType<typeof startTestGateway>>;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway({
      CHANNELS_OVERRIDE: JSON.stringify({
        open_banking: { status: 'live' },
        collection_va: { status: 'coming_soon' },
        reserved_va: { currencies: ['NGN', 'EUR'] },
        card: { status: 'live' },
      }),
    });
    ({ key } = await createWorkspaceWithKey(gw.env.db));
  });
  afterAll(() => gw.close());

  test('GET /v1/channels reports the override', async () => {
    const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
    const byId = Object.fromEntries(res.body.data.map((c: any) => [c.id, c]));
    expect(byId.open_banking.status).toBe('live');
    expect(byId.collection_va.status).toBe('coming_soon');
    expect(byId.reserved_va.currencies).toEqual(['NGN', 'EUR']);
  });

  test('open_banking live but no redirect URL configured: 400 with the exact message', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'open_banking' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: OPEN_BANKING_UNAVAILABLE });
  });

  test('a channel the catalog marks coming_soon is 400, on deposits and on collections', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'collection_va', amount: 10 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: 'The collection_va channel is not available yet.' });
    const col = await call(gw.url, 'POST', '/v1/collections', { token: key, body: { amount: 10, customer_name: 'A', customer_email: 'a@b.co' } });
    expect(col.status).toBe(400);
    expect(col.body.error.message).toBe('The collection_va channel is not available yet.');
  });

  test('reserved_va in a currency the override added: 201 active', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'reserved_va', currency: 'eur' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ channel: 'reserved_va', status: 'active' });
    const ngn = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'reserved_va' } });
    expect(ngn.body.data.account.account_number).not.toBe(res.body.data.account.account_number);
  });

  test('card stays 400 even when an override marks it live (no card provider exists)', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'card' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(CARD_UNAVAILABLE);
  });
});

describe('open banking live with a redirect URL; the sandbox rail forced to fail', () => {
  let gw: Awaited<ReturnType<typeof startTestGateway>>;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway({
      CHANNELS_OVERRIDE: JSON.stringify({ open_banking: { status: 'live' } }),
      OPEN_BANKING_REDIRECT_URL: 'https://pay.example.com/ob/start',
      COLLECTION_SANDBOX_FAIL: 'true',
    });
    ({ key } = await createWorkspaceWithKey(gw.env.db));
  });
  afterAll(() => gw.close());

  test('open_banking: 201 pending with redirect_url only', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'open_banking', amount: 'ignored' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ channel: 'open_banking', status: 'pending', redirect_url: 'https://pay.example.com/ob/start' });
  });

  test('open_banking in a currency it does not support is 400', async () => {
    const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'open_banking', currency: 'GBP' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/GBP is not supported by the open_banking channel/);
  });

  test('a rail outage: reserved_va and collection_va are 503 provider_error and nothing is written', async () => {
    for (const body of [{ channel: 'reserved_va' }, { channel: 'collection_va', amount: 10 }]) {
      const res = await call(gw.url, 'POST', '/v1/deposits', { token: key, body });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('provider_error');
    }
    expect(await gw.env.db.reservedAccount.count()).toBe(0);
    expect(await gw.env.db.collection.count()).toBe(0);
    expect(await gw.env.db.outboxEvent.count()).toBe(0);
  });
});
