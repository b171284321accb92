// Risk: the processing-age metric (and the alert on payouts processing past
// the grace window) reading the wrong payout, or a finished one, so a stuck
// payout goes unseen or a finished one keeps the alert firing.
import { Decimal } from '@cowrie/core';
import { createModeRails } from '@cowrie/rails';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { createTransfer, executePayout, oldestProcessingPayoutAgeSeconds } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

test("the oldest processing payout's age: the first one made while it is processing, 0 once none is", async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, '100');
  const rails = createModeRails(env.config, { redis: env.redis, sql: env.sql });
  const deps = { db: env.db, sql: env.sql, rails: rails.live, feeSchedule: {} };
  const send = () =>
    createTransfer(deps, { workspaceId: workspace.id, currency: 'NGN', amount: new Decimal('1'), accountNumber: '0123456789', bankCode: '058' });
  expect(await oldestProcessingPayoutAgeSeconds(env.sql)).toBe(0);
  const first = (await send()).transaction;
  const second = (await send()).transaction;
  const created = (await env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: first.id } })).createdAt;
  expect(await oldestProcessingPayoutAgeSeconds(env.sql, new Date(created.getTime() + 90_000))).toBe(90);
  await executePayout({ sql: env.sql, rails, transactionId: first.id, log: env.logger });
  const next = (await env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: second.id } })).createdAt;
  expect(await oldestProcessingPayoutAgeSeconds(env.sql, new Date(next.getTime() + 5_000))).toBe(5);
  await executePayout({ sql: env.sql, rails, transactionId: second.id, log: env.logger });
  expect(await oldestProcessingPayoutAgeSeconds(env.sql)).toBe(0);
});
