// Risk: money created or lost when holds, settles, failures and credits
// interleave. Twenty seeded runs each drive a random mix through the real
// gateway and payout worker (transfers that complete, fail at the rail or make
// it throw, withdrawals, credits landing in between, bursts of concurrent
// requests), then check, from the client's side and with the ledger auditor,
// that every figure adds up. A failing seed replays the same run.
import { auditLedger } from '@cowrie/ledger';
import { createWorkspaceWithKey, seededRandom } from '@cowrie/testing';
import { Decimal } from '@cowrie/core';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

const SEEDS = Array.from({ length: 20 }, (_, i) => 1000 + i);
const OPERATIONS = 40;
const FEES = { NGN: { flat: '0.5', percent: '1', cap: '3' } };

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ PAYOUT_FEE_SCHEDULE: JSON.stringify(FEES), DATABASE_POOL_SIZE: '10' });
});
afterAll(() => stack.close());

const fee = (amount: Decimal) => Decimal.min(new Decimal(FEES.NGN.flat).plus(amount.times(FEES.NGN.percent).dividedBy(100)), FEES.NGN.cap);

type Operation = { kind: 'credit'; amount: string } | { kind: 'transfer'; amount: string; account: string } | { kind: 'withdrawal'; amount: string };

function plan(seed: number): Operation[][] {
  const rnd = seededRandom(seed);
  const amount = () => `${rnd.int(1, 40)}.${String(rnd.int(0, 99)).padStart(2, '0')}`;
  const accounts = ['0123456789', '0123456789', '0123456789', '0000000001', '0000000002'];
  const groups: Operation[][] = [];
  let left = OPERATIONS;
  while (left > 0) {
    const size = Math.min(left, rnd.int(1, 8));
    left -= size;
    groups.push(
      Array.from({ length: size }, (): Operation => {
        const roll = rnd.next();
        if (roll < 0.2) return { kind: 'credit', amount: amount() };
        if (roll < 0.35) return { kind: 'withdrawal', amount: amount() };
        return { kind: 'transfer', amount: amount(), account: rnd.pick(accounts) };
      }),
    );
  }
  return groups;
}

test.each(SEEDS)('seed %i: interleaved holds, settles, failures and credits keep every figure whole', async (seed) => {
  const { db } = stack.env;
  const { workspace, key } = await createWorkspaceWithKey(db);
  let credited = new Decimal('30');
  await fund(db, workspace.id, 'NGN', '30');
  const beneficiary = await call(stack.url, 'POST', '/v1/beneficiaries', {
    token: key,
    body: { account_number: '0123456780', bank_code: '058', currency: 'NGN' },
  });
  expect(beneficiary.status).toBe(201);

  const payouts: Array<{ id: number; amount: Decimal; account: string }> = [];
  let refused = 0;
  for (const group of plan(seed)) {
    await Promise.all(
      group.map(async (op) => {
        if (op.kind === 'credit') {
          await fund(db, workspace.id, 'NGN', op.amount);
          credited = credited.plus(op.amount);
          return;
        }
        const res =
          op.kind === 'transfer'
            ? await call(stack.url, 'POST', '/v1/transfers', {
                token: key,
                body: { currency: 'NGN', amount: op.amount, account_number: op.account, bank_code: '058' },
              })
            : await call(stack.url, 'POST', '/v1/withdrawals', {
                token: key,
                body: { currency: 'NGN', amount: op.amount, beneficiary_id: beneficiary.body.data.id },
              });
        const account = op.kind === 'transfer' ? op.account : '0123456780';
        if (res.status === 400) {
          expect(res.body.error.message).toMatch(/^Exceeds balance: \d+\.\d{6} NGN$/);
          refused += 1;
        } else if (res.status === 502) {
          // The sandbox's throwing account: the failed row is kept and its hold released.
          expect(account).toBe('0000000002');
          expect(res.body.error.code).toBe('provider_error');
          payouts.push({ id: res.body.error.details.transaction.id, amount: new Decimal(op.amount), account });
        } else {
          expect(res.status).toBe(201);
          expect(res.body.data.amount).toBe(new Decimal(op.amount).toFixed(6));
          expect(res.body.data.fees).toBe(fee(new Decimal(op.amount)).toFixed(6));
          payouts.push({ id: res.body.data.id, amount: new Decimal(op.amount), account });
        }
      }),
    );
  }

  // Every payout reaches the state its account decides; the debit rows are exactly the accepted ones.
  const rows = await db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, type: 'debit' } });
  expect(rows).toHaveLength(payouts.length);
  let paidOut = new Decimal(0);
  for (const p of payouts) {
    const row = rows.find((r) => r.id === p.id)!;
    expect(row.status).toBe(p.account === '0123456789' || p.account === '0123456780' ? 'completed' : 'failed');
    if (row.status === 'completed') paidOut = paidOut.plus(p.amount).plus(fee(p.amount));
  }
  expect(refused + payouts.length).toBe(
    plan(seed)
      .flat()
      .filter((op) => op.kind !== 'credit').length,
  );

  // The client's sum and the service's balances agree, nothing is left held, and the auditor finds nothing.
  const balances = await call(stack.url, 'GET', '/v1/balances', { token: key });
  const ngn = balances.body.data.find((b: { currency: string }) => b.currency === 'NGN');
  expect(ngn).toMatchObject({ ledger: credited.minus(paidOut).toFixed(6), available: credited.minus(paidOut).toFixed(6), pending: '0.000000' });
  expect((await auditLedger(db, { workspaceId: workspace.id })).violations).toEqual([]);
});
