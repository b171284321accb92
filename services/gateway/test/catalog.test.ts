// Risk: channel availability or the capability map drifting from the defaults
// the catalog ships (docs/accept-deposits.md: card and open_banking
// coming_soon), or an operator override not taking effect.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

describe('shipped defaults', () => {
  let gw: Awaited<ReturnType<typeof startTestGateway>>;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway();
    ({ key } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] }));
  });
  afterAll(() => gw.close());

  test('GET /v1/channels lists the four channels with their default status', async () => {
    const res = await call(gw.url, 'GET', '/v1/channels', { token: key });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((c: { id: string }) => [c.id, c]));
    expect(Object.keys(byId).sort()).toEqual(['card', 'collection_va', 'open_banking', 'reserved_va']);
    expect(byId.card.status).toBe('coming_soon');
    expect(byId.open_banking.status).toBe('coming_soon');
    expect(byId.collection_va.status).toBe('live');
    expect(byId.reserved_va.status).toBe('live');
    for (const c of res.body.data) {
      expect(typeof c.label).toBe('string');
      expect(Array.isArray(c.currencies)).toBe(true);
      expect(Object.keys(c).sort()).toEqual(['currencies', 'id', 'label', 'status']);
    }
  });

  test('GET /v1/capabilities lists every capability area', async () => {
    const res = await call(gw.url, 'GET', '/v1/capabilities', { token: key });
    expect(res.status).toBe(200);
    const ids = res.body.data.areas.map((a: { id: string }) => a.id);
    for (const area of [
      'contact_verification',
      'collections',
      'reserved_accounts',
      'deposits',
      'payouts',
      'bank_lookup',
      'beneficiaries',
      'balances_and_ledger',
      'channels_and_capabilities',
      'outbound_webhooks',
      'api_conventions',
    ]) {
      expect(ids).toContain(area);
    }
    const status = Object.fromEntries(res.body.data.areas.map((a: { id: string; status: string }) => [a.id, a.status]));
    expect(status.cards).toBe('coming_soon');
    expect(status.open_banking).toBe('coming_soon');
    expect(res.body.data.deposit_channels).toEqual({ card: 'coming_soon', collection_va: 'live', reserved_va: 'live', open_banking: 'coming_soon' });
  });

  test('POST /v1/cards is 501 coming_soon', async () => {
    const res = await call(gw.url, 'POST', '/v1/cards', { token: key, body: {} });
    expect(res.status).toBe(501);
    expect(res.body.error.code).toBe('coming_soon');
  });
});

test('an operator override changes channels and capabilities alike', async () => {
  const gw = await startTestGateway({ CHANNELS_OVERRIDE: JSON.stringify({ open_banking: { status: 'live', currencies: ['ngn', 'gbp'] } }) });
  try {
    const { key } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] });
    const channels = await call(gw.url, 'GET', '/v1/channels', { token: key });
    const ob = channels.body.data.find((c: { id: string }) => c.id === 'open_banking');
    expect(ob).toMatchObject({ status: 'live', currencies: ['NGN', 'GBP'] });
    const caps = await call(gw.url, 'GET', '/v1/capabilities', { token: key });
    expect(caps.body.data.deposit_channels.open_banking).toBe('live');
  } finally {
    await gw.close();
  }
});
