// Risk: an overdraft under concurrency. 200 transfers of 1.00 race for a
// wallet holding 50.00 through the real gateway, queue and worker: exactly 50
// may pass, available never goes below 0, and the ledger stays balanced.
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call } from './start-test-gateway';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ DATABASE_POOL_SIZE: '10' });
});
afterAll(() => stack.close());

test('200 concurrent transfers of 1.00 against 50.00: exactly 50 go through, the rest are 400, never an overdraft', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
  await fund(stack.env.db, workspace.id, 'NGN', '50.00');
  const wallet = (await findWallet(stack.env.db, workspace.id, 'NGN'))!;

  // Sample the wallet while the race runs: available must never dip below zero.
  let sampling = true;
  let lowest: string | null = null;
  const sampler = (async () => {
    while (sampling) {
      const [row] = await stack.env.db.$queryRaw<Array<{ available: string }>>`SELECT ("balance" - "held")::text AS available FROM "Wallet" WHERE "id" = ${wallet.id}`;
      if (lowest === null || Number(row!.available) < Number(lowest)) lowest = row!.available;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();

  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      call(stack.url, 'POST', '/v1/transfers', { token: key, body: { currency: 'NGN', amount: '1.00', account_number: '0123456789', bank_code: '058', narration: `race ${i}` } }),
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
