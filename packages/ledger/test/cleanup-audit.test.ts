// Risk: a test file that leaves the ledger broken (a balance that is not the
// sum of its entries) passes, because the audit at its env's cleanup was
// dropped when @cowrie/testing stopped depending on the ledger, or because a
// failing audit no longer fails the cleanup.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { findWallet } from '../src';
import { createTestEnv, fundWallet, LedgerViolationError } from '../testing';

const databaseExists = async (probe: Awaited<ReturnType<typeof createTestEnv>>, name: string) =>
  (await probe.db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM pg_database WHERE datname = ${name}`)[0]!.n > 0n;

test('a ledger violation a test file leaves behind fails its cleanup, which still drops the database', async () => {
  const env = await createTestEnv();
  const probe = await createTestEnv();
  try {
    const { workspace } = await createWorkspaceWithKey(env.db);
    await fundWallet(env.db, workspace.id, '25');
    const wallet = (await findWallet(env.db, workspace.id, 'NGN'))!;
    // Money out of nowhere: the balance moves without an entry.
    await env.db.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 1 WHERE "id" = ${wallet.id}`;
    const name = new URL(env.config.DATABASE_URL).pathname.slice(1);

    const cleanup = env.cleanup();
    await expect(cleanup).rejects.toBeInstanceOf(LedgerViolationError);
    await expect(cleanup).rejects.toThrow(/wallet_balance_equals_entries/);
    expect(await databaseExists(probe, name)).toBe(false);
  } finally {
    await probe.cleanup();
  }
});

test('a whole ledger passes, and an extra audit runs beside the ledger one', async () => {
  const env = await createTestEnv();
  const ran: string[] = [];
  const withExtra = await createTestEnv({}, { audits: [{ name: 'extra', run: async () => void ran.push('extra') }] });
  const { workspace } = await createWorkspaceWithKey(withExtra.db);
  await fundWallet(withExtra.db, workspace.id, '10');
  await withExtra.db.$executeRaw`UPDATE "Wallet" SET "held" = "held" + 1 WHERE "workspaceId" = ${workspace.id} AND "currency" = 'NGN'`;

  await expect(env.cleanup()).resolves.toBeUndefined();
  // The extra audit does not replace the ledger's: the held amount without a hold still fails.
  await expect(withExtra.cleanup()).rejects.toThrow(/wallet_held_equals_entries/);
  expect(ran).toEqual(['extra']);
});
