// Risk: a rail whose answers are ambiguous makes the ledger disagree with
// where the money really went, or pays a reference twice. One hundred seeded
// trials through the gateway, the worker and its reconciler against a Paystack
// stand-in that, per transfer, records it or not and then answers, fails with
// a 5xx, or times out, sometimes showing a recorded transfer to verify only
// later. At the end: at most one send per reference, and every payout's final
// status is the stand-in's truth (recorded → completed, never recorded →
// failed, only after the grace window).
import { auditLedger } from '@cowrie/ledger';
import { startPaystackStandIn, type PaystackStandIn, type StandInSend } from '@cowrie/paystack/testing';
import { createWorkspaceWithKey, seededRandom, waitFor } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

const TRIALS = 100;
const SEED = 20261124;

let standIn: PaystackStandIn;
let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  standIn = await startPaystackStandIn();
  standIn.options.hangMs = 1000;
  stack = await startPayoutStack({
    PAYOUT_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: standIn.secret,
    PAYSTACK_BASE_URL: standIn.url,
    PAYSTACK_TIMEOUT_MS: '500',
    PAYOUT_SYNC_WAIT_MS: '3000',
    PAYOUT_RECONCILE_EVERY_MS: '300',
    PAYOUT_RECONCILE_AFTER_MS: '1000',
    PAYOUT_UNKNOWN_FIRST_CHECK_MS: '200',
    PAYOUT_UNKNOWN_MAX_CHECK_MS: '500',
    PAYOUT_UNKNOWN_GRACE_MS: '3000',
    DATABASE_POOL_SIZE: '10',
  });
});
afterAll(async () => {
  await stack.close();
  await standIn.close();
});

const BEHAVIOURS: StandInSend[] = [
  { record: true, answer: 'ok' },
  { record: true, answer: '5xx' },
  { record: true, answer: 'hang' },
  { record: true, answer: '5xx', visibleAfterMs: 1500 },
  { record: true, answer: 'hang', visibleAfterMs: 1500 },
  { record: false, answer: '5xx' },
  { record: false, answer: 'hang' },
];

test(`${TRIALS} seeded trials of ambiguous rail answers: one send per reference, the ledger ends where the money went`, async () => {
  // The trials are the seed's, so a failure replays exactly.
  const random = seededRandom(SEED);
  const plans = Array.from({ length: TRIALS }, () => random.pick(BEHAVIOURS));
  standIn.options.behaviour = ({ reason }) => plans[Number(/^trial (\d+)$/.exec(reason)?.[1] ?? -1)];
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '10000');

  const answers = await Promise.all(
    plans.map((_, i) =>
      call(stack.url, 'POST', '/v1/transfers', {
        token: key,
        body: { currency: 'NGN', amount: 10, account_number: '0123456789', bank_code: '058', narration: `trial ${i}` },
      }),
    ),
  );
  const ids = answers.map((res) => {
    // The API's answers only: the row as the rail left it, or the provider error, with the row processing
    // while its outcome is confirmed, or failed when nothing can have been sent (a call before the send timed out).
    if (res.status === 201) return res.body.data.id as number;
    expect([502, 504]).toContain(res.status);
    expect(res.body.error.code).toBe('provider_error');
    const { outcome, transaction } = res.body.error.details;
    expect(outcome === 'unknown' ? transaction.status === 'processing' : transaction.status === 'failed' && !standIn.transfers.has(transaction.reference)).toBe(
      true,
    );
    return transaction.id as number;
  });

  const rows = () => stack.env.db.ledgerTransaction.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
  await waitFor(async () => (await rows()).every((r) => r.status !== 'processing'), 60_000, 200);
  for (const row of await rows()) {
    const sends = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/transfer' && r.body?.reference === row.reference).length;
    // At most one send; none when a call before it (the recipient) timed out on a busy machine, and the payout failed having sent nothing.
    expect(sends).toBe(standIn.transfers.has(row.reference) ? 1 : Math.min(sends, 1));
    const truth = standIn.transfers.has(row.reference) ? 'completed' : 'failed';
    expect({ reference: row.reference, status: row.status }).toEqual({ reference: row.reference, status: truth });
  }
  const events = await stack.env.db.outboxEvent.groupBy({ by: ['event'], where: { workspaceId: workspace.id }, _count: true });
  expect(events.reduce((n, e) => n + e._count, 0)).toBe(TRIALS);
  expect((await auditLedger(stack.env.db, { workspaceId: workspace.id })).violations).toEqual([]);
});
