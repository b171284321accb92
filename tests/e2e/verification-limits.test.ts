// Risk: a destination or business getting more codes than the limits allow (or
// fewer), limits counted for requests that failed validation, a 429 carrying
// the request-budget headers; a stale code accepted, or GET changing state.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;

// A one-day window: no start of this file leaves it.
const WINDOW = 86_400;
beforeAll(async () => {
  gw = await startVerificationGateway({
    VERIFY_RATE_DEST_LIMIT: '2',
    VERIFY_RATE_BIZ_LIMIT: '3',
    VERIFY_RATE_WINDOW_SECONDS: String(WINDOW),
    VERIFY_CODE_TTL_SECONDS: '1',
  });
});
afterAll(() => gw.close());

const newKey = async () => (await createWorkspaceWithKey(gw.env.db)).key;
const start = (token: string, body: Record<string, unknown>) => call(gw.url, 'POST', '/v1/verifications', { token, body });

function expectVerificationLimit(res: Awaited<ReturnType<typeof start>>, reason: 'destination' | 'business') {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe('rate_limited');
  expect(Object.keys(res.body.error.details).sort()).toEqual(['reason', 'retry_after_seconds']);
  expect(res.body.error.details.reason).toBe(reason);
  expect(res.body.error.details.retry_after_seconds).toBeGreaterThan(0);
  expect(res.body.error.details.retry_after_seconds).toBeLessThanOrEqual(WINDOW);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(h)).toBeNull();
}

test('per destination: the limit-th start passes, the next is 429 destination, counted across channels, nothing sent', async () => {
  const key = await newKey();
  const first = await start(key, { channel: 'sms', destination: '+2348020000001' });
  expect(first.status).toBe(201);
  // Other /v1 responses still carry the request-budget headers.
  expect(first.headers.get('x-ratelimit-limit')).not.toBeNull();
  expect((await start(key, { channel: 'voice', destination: '+2348020000001' })).status).toBe(201);
  const before = await gw.env.db.verification.count();
  const limited = await start(key, { channel: 'sms', destination: '08020000001' });
  expectVerificationLimit(limited, 'destination');
  expect(await gw.env.db.verification.count()).toBe(before);
  expect(await gw.sandboxMessages('+2348020000001')).toHaveLength(2);
  // Another destination of the same business still passes.
  expect((await start(key, { channel: 'sms', destination: '+2348020000002' })).status).toBe(201);
});

test('per business: the limit-th start passes, the next is 429 business, whatever the destination and channel', async () => {
  const key = await newKey();
  expect((await start(key, { channel: 'sms', destination: '+2348030000001' })).status).toBe(201);
  expect((await start(key, { channel: 'email', destination: 'biz1@example.com' })).status).toBe(201);
  expect((await start(key, { channel: 'voice', destination: '+2348030000002' })).status).toBe(201);
  const limited = await start(key, { channel: 'email', destination: 'biz2@example.com' });
  expectVerificationLimit(limited, 'business');
  expect(await gw.sandboxMessages('biz2@example.com')).toEqual([]);
  // Each business has its own budget.
  expect((await start(await newKey(), { channel: 'email', destination: 'biz2@example.com' })).status).toBe(201);
});

test('requests that fail validation count against no limit', async () => {
  const key = await newKey();
  for (const body of [
    { channel: 'sms', destination: '+2348040000001', code: '12' },
    { channel: 'fax', destination: '+2348040000001' },
    { channel: 'sms', destination: '+2348040000001', metadata: [1] },
    { channel: 'sms', destination: '+1415555267' },
    { channel: 'email', destination: 'not-an-email' },
  ]) {
    expect((await start(key, body)).status).toBe(400);
  }
  expect((await start(key, { channel: 'sms', destination: '+2348040000001' })).status).toBe(201);
  expect((await start(key, { channel: 'sms', destination: '+2348040000001' })).status).toBe(201);
  expect((await start(key, { channel: 'sms', destination: '+2348040000002' })).status).toBe(201);
  expectVerificationLimit(await start(key, { channel: 'sms', destination: '+2348040000003' }), 'business');
});

test('a failed delivery still counts (the limit is checked before sending)', async () => {
  const key = await newKey();
  expect((await start(key, { channel: 'sms', destination: '+2340000000000' })).status).toBe(400);
  expect((await start(key, { channel: 'sms', destination: '+2340000000000' })).status).toBe(400);
  expectVerificationLimit(await start(key, { channel: 'sms', destination: '+2340000000000' }), 'destination');
});

test('concurrent starts at the boundary: exactly the limit pass', async () => {
  const key = await newKey();
  const results = await Promise.all(Array.from({ length: 6 }, () => start(key, { channel: 'sms', destination: '+2348050000001' })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(2);
  expect(results.filter((r) => r.status === 429)).toHaveLength(4);
});

test('TTL: GET leaves a stale pending row pending; the first check after the TTL expires it', async () => {
  const key = await newKey();
  const res = await start(key, { channel: 'sms', destination: '+2348060000001', code: '8642' });
  expect(res.status).toBe(201);
  const reference = res.body.data.reference;
  expect(Date.parse(res.body.data.expiresAt) - Date.now()).toBeLessThanOrEqual(1000);
  await new Promise((r) => setTimeout(r, 1100));
  const stale = await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: key });
  expect(stale.body.data).toMatchObject({ status: 'pending', attempts: 0 });
  expect((await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: key })).body.data.status).toBe('pending');
  const checked = await call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code: '8642' } });
  expect(checked.status).toBe(201);
  expect(checked.body.data).toEqual({ status: 'failed', reason: 'expired' });
  const after = await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: key });
  expect(after.body.data).toMatchObject({ status: 'expired', verified_at: null });
  const events = await gw.env.db.outboxEvent.findMany({ where: { event: 'verification.expired' } });
  expect(events.filter((e) => (e.payload as { reference: string }).reference === reference)).toHaveLength(1);
});
