// Risk: the dashboard's transaction detail missing the events a payout or a
// collection credit produced (or showing another transaction's), or showing
// another workspace's transaction.
import { Decimal } from '@cowrie/core';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { startPayoutWorker, type RunningPayoutWorker } from '@cowrie/payout-worker';
import { startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { fundWallet } from '@cowrie/ledger/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { call, signInNewWorkspace, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let payouts: RunningPayoutWorker;
let sender: RunningWebhookWorker;
let receiver: HttpReceiver;
let a: Awaited<ReturnType<typeof signInNewWorkspace>>;
let b: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startTestGateway({ WEBHOOK_TIMEOUT_MS: '2000' });
  payouts = await startPayoutWorker(gw.env.config, gw.env.logger);
  sender = await startWebhookWorker(gw.env.config, gw.env.logger);
  receiver = await startHttpReceiver();
  a = await signInNewWorkspace(gw, 'Detail A');
  b = await signInNewWorkspace(gw, 'Detail B');
  expect((await call(gw.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: `${receiver.url}/events` } })).status).toBe(201);
});
afterAll(async () => {
  await sender?.stop();
  await payouts?.stop();
  await receiver?.close();
  await gw?.close();
});

const detail = (reference: string, token = a.token) => call(gw.url, 'GET', `/transactions/${reference}`, { token });

test("a payout's detail holds the transaction and its transfer.completed event with the event's deliveries", async () => {
  await fundWallet(gw.env.db, a.workspaceId, '5000');
  const banks = await call(gw.url, 'GET', '/v1/banks', { token: a.apiKey });
  const sent = await call(gw.url, 'POST', '/v1/transfers', {
    token: a.apiKey,
    body: { currency: 'NGN', amount: 1500, account_number: '0123456789', bank_code: banks.body.data[0].bankCode },
  });
  expect(sent.body.data.status).toBe('completed');
  // Another payout a moment later: its event must not show on the first one.
  await call(gw.url, 'POST', '/v1/transfers', {
    token: a.apiKey,
    body: { currency: 'NGN', amount: 10, account_number: '0000000001', bank_code: banks.body.data[0].bankCode },
  });

  const delivered = await waitFor(async () => {
    const res = await detail(sent.body.data.reference);
    return res.body.data.events[0]?.deliveries[0]?.ok === true && res;
  });
  expect(delivered.status).toBe(200);
  expect(delivered.body.data.transaction).toEqual(
    (await call(gw.url, 'GET', `/v1/transactions?search=${sent.body.data.reference}`, { token: a.apiKey })).body.data[0],
  );
  expect(delivered.body.data.events).toEqual([
    {
      id: expect.any(Number),
      event: 'transfer.completed',
      created_at: expect.any(String),
      deliveries: [{ id: expect.any(Number), endpoint_id: expect.any(Number), dispatch: 0, ok: true, status_code: 200, created_at: expect.any(String) }],
    },
  ]);
  const logRow = await call(gw.url, 'GET', `/webhook-deliveries/${delivered.body.data.events[0].deliveries[0].id}`, { token: a.token });
  expect(logRow.body.data.payload.data.reference).toBe(sent.body.data.reference);
});

test("a collection credit's detail holds its collection.successful event; another workspace gets not_found", async () => {
  const opened = await call(gw.url, 'POST', '/v1/collections', {
    token: a.apiKey,
    body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount: 700 },
  });
  const received = await receiveInboundTransfer(
    { db: gw.env.db },
    {
      provider: gw.env.config.COLLECTION_RAIL,
      providerReference: 'detail-in-1',
      accountNumber: opened.body.data.account.account_number,
      amount: new Decimal('700'),
      currency: 'NGN',
      raw: {},
    },
  );
  expect(received).toMatchObject({ status: 'credited' });
  const credit = (await call(gw.url, 'GET', '/v1/transactions?search=detail-in-1', { token: a.apiKey })).body.data[0];
  const res = await detail(credit.reference);
  expect(res.body.data.events.map((e: { event: string }) => e.event)).toEqual(['collection.successful']);

  expect((await detail(credit.reference, b.token)).status).toBe(404);
  expect((await detail('snd_nothing_like_this')).status).toBe(404);
  expect((await call(gw.url, 'GET', `/transactions/${credit.reference}`, { token: a.apiKey })).status).toBe(401);
});
