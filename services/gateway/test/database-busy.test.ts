// Risk: a request answered 500 (which the API does not have) when the
// database is only busy: every pooled connection taken for longer than an
// interactive transaction may wait (Prisma's P2028). A rail notification is
// the case the soak found: Paystack must see a retryable 503, and the retry
// must credit once.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { findWallet, renderBalance } from '@cowrie/ledger';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';
import { call, startTestGateway } from '../testing';

const SECRET = 'sk_test_gateway_busy_0123456789';
let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
  gw = await startTestGateway({ COLLECTION_RAIL: 'paystack', PAYSTACK_SECRET_KEY: SECRET, PAYSTACK_BASE_URL: standIn.url, DATABASE_POOL_SIZE: '1' });
});
afterAll(async () => {
  await gw.close();
  await standIn.close();
});

test('a notification that cannot get a database connection in time: 503 provider_error with Retry-After; the retry credits once', async () => {
  const ws = await createWorkspaceWithKey(gw.env.db, { name: 'Busy Co' });
  const opened = await call(gw.url, 'POST', '/v1/deposits', { token: ws.key, body: { channel: 'reserved_va' } });
  expect(opened.status).toBe(201);
  const { rawBody, signature } = paystackChargeSuccess(SECRET, {
    reference: 'busy-1',
    amountKobo: 50000,
    accountNumber: opened.body.data.account.account_number,
  });

  // The gateway's only pooled connection, taken for longer than a transaction waits to start.
  let release!: () => void;
  const held = gw.deps.db.$transaction(() => new Promise<void>((resolve) => (release = resolve)), { timeout: 20_000 });
  try {
    await new Promise((r) => setTimeout(r, 100));
    const busy = await call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody, headers: { 'x-paystack-signature': signature } });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body.error.code).toBe('provider_error');
  } finally {
    release();
    await held;
  }

  const retried = await call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody, headers: { 'x-paystack-signature': signature } });
  expect(retried.status).toBe(200);
  expect(retried.body.data).toMatchObject({ matched: true, duplicate: false, status: 'credited' });
  expect(renderBalance((await findWallet(gw.env.db, ws.workspaceId, 'NGN'))!).available).toBe('500.000000');
});
