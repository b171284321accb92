// Risk: an overdraft or a double payout under concurrency. Transfers race for
// one wallet through the real gateway, queue and worker: exactly what the
// balance covers may pass, available never goes below 0, the ledger stays
// balanced; and requests sharing one key (body, header, or both) pay once.
import { auditLedger, auditWallet, findWallet } from '@cowrie/ledger';
import { sandboxTransferCalls } from '@cowrie/rails';
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ DATABASE_POOL_SIZE: '10' });
});
afterAll(() => stack.close());

test('500 concurrent transfers of 1 against 100: exactly 100 accepted, the rest Exceeds balance, never a 5xx', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const results = await Promise.all(
    Array.from({ length: 500 }, () =>
      call(stack.url, 'POST', '/v1/transfers', { token: key, body: { currency: 'NGN', amount: 1, account_number: '0123456789', bank_code: '058' } }),
    ),
  );
  expect(results.filter((r) => r.status >= 500)).toEqual([]);
  expect(results.filter((r) => r.status === 201)).toHaveLength(100);
  const refused = results.filter((r) => r.status === 400);
  expect(refused).toHaveLength(400);
  for (const r of refused) expect(r.body.error.message).toMatch(/^Exceeds balance: \d+\.\d{6} NGN$/);
  const wallet = (await findWallet(stack.env.db, workspace.id, 'NGN'))!;
  await waitFor(async () => (await stack.env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, status: 'processing' } })) === 0);
  expect((await auditLedger(stack.env.db, { workspaceId: workspace.id })).violations).toEqual([]);
  expect((await findWallet(stack.env.db, workspace.id, 'NGN'))!.balance.toFixed(6)).toBe('0.000000');
  expect(wallet.balance.minus(wallet.held).isNegative()).toBe(false);
});

test.each([
  ['one body idempotency_key', { idempotency_key: 'same-body-key' }, {}],
  ['one Idempotency-Key header', {}, { 'Idempotency-Key': 'same-header-key' }],
  ['both, with one value', { idempotency_key: 'same-both-key' }, { 'Idempotency-Key': 'same-both-key' }],
])('20 concurrent identical transfers with %s make one payout, one hold, one rail call', async (_name, extraBody, headers) => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '100');
  const body = { currency: 'NGN', amount: 7, account_number: '0123456789', bank_code: '058', ...extraBody };
  const results = await Promise.all(Array.from({ length: 20 }, () => call(stack.url, 'POST', '/v1/transfers', { token: key, body, headers })));
  const rows = await stack.env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, type: 'debit' } });
  expect(rows).toHaveLength(1);
  for (const r of results) {
    if (r.status === 201) expect(r.body.data.id).toBe(rows[0]!.id);
    else expect(r).toMatchObject({ status: 409, body: { error: { code: 'idempotency_conflict', message: expect.stringMatching(/still in progress/) } } });
  }
  expect(results.some((r) => r.status === 201)).toBe(true);
  expect(await stack.env.db.ledgerEntry.count({ where: { transactionId: rows[0]!.id, kind: 'hold' } })).toBe(1);
  expect(await sandboxTransferCalls(stack.env.sql, rows[0]!.reference)).toBe(1);
  expect((await findWallet(stack.env.db, workspace.id, 'NGN'))!.balance.toFixed(6)).toBe('93.000000');
});

test('200 concurrent transfers of 1.00 against 50.00: exactly 50 go through, the rest are 400, never an overdraft', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '50.00');
  const wallet = (await findWallet(stack.env.db, workspace.id, 'NGN'))!;

  // Sample the wallet while the race runs: available must never dip below zero.
  let sampling = true;
  let lowest: string | null = null;
  const sampler = (async () => {
    while (sampling) {
      const [row] = await stack.env.db.$queryRaw<
        Array<{ available: string }>
      >`SELECT ("balance" - "held")::text AS available FROM "Wallet" WHERE "id" = ${wallet.id}`;
      if (lowest === null || Number(row!.available) < Number(lowest)) lowest = row!.available;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();

  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      call(stack.url, 'POST', '/v1/transfers', {
        token: key,
        body: { currency: 'NGN', amount: '1.00', account_number: '0123456789', bank_code: '058', narration: `race ${i}` },
      }),
    ),
  );
  sampling = false;
  await sampler;

  const passed = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status === 400);
  expect(passed).toHaveLength(50);
  expect(refused).toHaveLength(150);
  for (const r of passed) expect(['completed', 'processing']).toContain(r.body.data.status);
  for (const r of refused) expect(r.body.error.message).toMatch(/^Exceeds balance: \d+\.\d{6} NGN$/);
  expect(Number(lowest)).toBeGreaterThanOrEqual(0);

  const audit = await auditWallet(stack.env.db, wallet.id);
  expect(audit.consistent).toBe(true);
  expect(audit.balance.minus(audit.held).toFixed(6)).toBe('0.000000');
  expect(await stack.env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, type: 'debit' } })).toBe(50);
});
