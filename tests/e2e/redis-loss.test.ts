// Risk: payouts stranded for good, or sent twice, when Redis loses its data
// under load: FLUSHALL, or Redis killed and restarted without persistence (a
// failover to a replica that lacked the keys looks the same). 200 payouts are
// queued through the real gateway, a worker drains them slowly, and Redis
// loses everything mid-run. Every row must still reach a terminal state, each
// reference reach the rail once, and the ledger stay whole. Each case runs on
// a private redis-server, so the shared one is never touched.
import { auditLedger } from '@cowrie/ledger';
import { sandboxTransferCalls } from '@cowrie/rails';
import { createWorkspaceWithKey, startRedisServer, waitFor, type RedisServer } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

const PAYOUTS = 200;

async function runWithRedisLoss(loseData: (redis: RedisServer) => Promise<void>) {
  const redis = await startRedisServer();
  const stack = await startPayoutStack({
    REDIS_URL: redis.url,
    PAYOUT_SYNC_WAIT_MS: '0',
    PAYOUT_SANDBOX_DELAY_MS: '50',
    PAYOUT_WORKER_CONCURRENCY: '2',
    PAYOUT_RECONCILE_EVERY_MS: '300',
    PAYOUT_RECONCILE_AFTER_MS: '1000',
    DATABASE_POOL_SIZE: '10',
  });
  try {
    const { workspace, key } = await createWorkspaceWithKey(stack.env.db);
    await fund(stack.env.db, workspace.id, 'NGN', '100000');
    const answers = await Promise.all(
      Array.from({ length: PAYOUTS }, (_, i) =>
        call(stack.url, 'POST', '/v1/transfers', {
          token: key,
          body: { currency: 'NGN', amount: 10, account_number: i % 10 === 0 ? '0000000001' : '0123456789', bank_code: '058' },
        }),
      ),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 201)).toEqual([]);
    const rows = () => stack.env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, type: 'debit' } });
    // Lose Redis while most jobs are still queued.
    await waitFor(async () => (await rows()).some((r) => r.status !== 'processing'), 20_000, 10);
    expect((await rows()).filter((r) => r.status === 'processing').length).toBeGreaterThan(PAYOUTS / 2);
    await loseData(redis);

    await waitFor(async () => (await rows()).every((r) => r.status !== 'processing'), 90_000, 200);
    const final = await rows();
    expect(final).toHaveLength(PAYOUTS);
    for (const row of final) {
      expect(row.status).toBe(row.counterpartyAccount === '0000000001' ? 'failed' : 'completed');
      expect(await sandboxTransferCalls(stack.env.sql, row.reference)).toBe(1);
    }
    expect(await stack.env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: { in: ['transfer.completed', 'transfer.failed'] } } })).toBe(
      PAYOUTS,
    );
    expect((await auditLedger(stack.env.db, { workspaceId: workspace.id })).violations).toEqual([]);
  } finally {
    await stack.close().catch(() => undefined);
    await redis.stop();
  }
}

test('FLUSHALL during 200 queued payouts: every row ends terminal, each sent once', async () => {
  await runWithRedisLoss(async (redis) => {
    const { default: Redis } = await import('ioredis');
    const admin = new Redis(redis.url);
    await admin.flushall();
    admin.disconnect();
  });
});

test('Redis SIGKILLed and restarted empty during 200 queued payouts: every row ends terminal, each sent once', async () => {
  await runWithRedisLoss(async (redis) => {
    await redis.kill();
    await new Promise((r) => setTimeout(r, 1000));
    await redis.restart();
  });
});
