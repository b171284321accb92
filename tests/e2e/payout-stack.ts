import type { PrismaClient } from '@cowrie/db';
import { createMetrics } from '@cowrie/metrics';
import { startPayoutWorker } from '@cowrie/payout-worker';
import { startTestGateway } from '@cowrie/gateway/testing';
import { fundWallet } from '@cowrie/ledger/testing';

/**
 * A gateway and an in-process payout worker on one isolated test env, as an
 * operator would run them. The request budget is raised so bursts are not 429s.
 */
export async function startPayoutStack(envOverrides: Record<string, string> = {}) {
  const gw = await startTestGateway({ PUBLIC_API_RATE_LIMIT: '100000', ...envOverrides });
  const workerMetrics = createMetrics({ service: 'payout-worker', processMetrics: false });
  const worker = await startPayoutWorker(gw.env.config, gw.env.logger, { metrics: workerMetrics });
  return {
    ...gw,
    worker,
    /** The payout worker's metrics (the gateway's are `deps.metrics`). */
    workerMetrics,
    async close() {
      await worker.stop();
      await gw.close();
    },
  };
}

/** Sandbox funding, as `cowrie wallet credit` does it. */
export async function fund(db: PrismaClient, workspaceId: number, currency: string, amount: string) {
  await fundWallet(db, workspaceId, amount, currency);
}

/** The API's ledger transaction fields, exactly. */
export const LEDGER_FIELDS = [
  'id',
  'type',
  'direction',
  'category',
  'channel',
  'status',
  'reference',
  'idempotencyKey',
  'businessId',
  'walletId',
  'currency',
  'amount',
  'fees',
  'title',
  'description',
  'provider',
  'providerReference',
  'counterpartyName',
  'counterpartyAccount',
  'counterpartyBank',
  'counterpartyEmail',
  'metadata',
  'createdAt',
  'updatedAt',
].sort();

/** Moves a workspace's payouts sent under `idempotencyKey`, and the key's record, 25 hours into the past, as a day passing would leave them. */
export async function aDayLater(db: PrismaClient, workspaceId: number, idempotencyKey: string) {
  const dayAgo = `- interval '25 hours'`;
  await db.$executeRawUnsafe(
    `UPDATE "IdempotencyRecord" SET "createdAt" = "createdAt" ${dayAgo}, "expiresAt" = "expiresAt" ${dayAgo} WHERE "workspaceId" = $1 AND "key" = $2`,
    workspaceId,
    idempotencyKey,
  );
  await db.$executeRawUnsafe(
    `UPDATE "LedgerTransaction" SET "createdAt" = "createdAt" ${dayAgo} WHERE "workspaceId" = $1 AND "requestKey" = $2`,
    workspaceId,
    idempotencyKey,
  );
}
