// Risk: money that appears or vanishes unnoticed. The auditor must see every
// way a ledger can go wrong, the CLI must exit 1 when it does, and the database
// itself must refuse an impossible wallet or entry (CHECK constraints).
import { Prisma } from '@cowrie/db';
import { auditLedger, findWallet, type LedgerRule } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
let cliEnv: Record<string, string>;
beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL };
});
afterAll(() => env.cleanup());

async function fundedWorkspace(amount = '100') {
  const { workspace } = await createWorkspaceWithKey(env.db);
  await fundWallet(env.db, workspace.id, amount);
  const wallet = (await findWallet(env.db, workspace.id, 'NGN'))!;
  return { workspaceId: workspace.id, walletId: wallet.id };
}

/** Runs `corrupt` and the audit in one REPEATABLE READ transaction (the audit's snapshot) that is rolled back: the database is left whole. */
async function auditAfter(corrupt: (tx: Prisma.TransactionClient) => Promise<unknown>, workspaceId?: number): Promise<LedgerRule[]> {
  let rules: LedgerRule[] = [];
  await env.db
    .$transaction(
      async (tx) => {
        await corrupt(tx);
        rules = (await auditLedger(tx, { workspaceId })).violations.map((v) => v.rule);
        throw new Error('rollback');
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead },
    )
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  return rules;
}

/** A payout row in `status` with its hold (and closing entry) as the payouts package writes them, in `tx`. */
async function payout(
  tx: Prisma.TransactionClient,
  at: { workspaceId: number; walletId: number },
  status: 'processing' | 'completed' | 'failed',
  entries: Array<'hold' | 'settle' | 'release'>,
  amount = '10',
) {
  const [inserted] = await tx.$queryRaw<Array<{ id: number }>>`
    INSERT INTO "LedgerTransaction" ("workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference", "idempotencyKey",
      "currency", "amount", "fees", "title", "description", "provider", "updatedAt")
    VALUES (${at.workspaceId}, ${at.walletId}, 'debit', 'out', 'send', 'transfer', ${status}, ${`snd_${Math.random().toString(16).slice(2)}`},
      ${`k_${Math.random().toString(16).slice(2)}`}, 'NGN', ${amount}::numeric, 0, 'Transfer', 'test', 'sandbox', now())
    RETURNING "id"`;
  const id = inserted!.id;
  for (const kind of entries) {
    const [balanceDelta, heldDelta] = kind === 'hold' ? ['0', amount] : kind === 'settle' ? [`-${amount}`, `-${amount}`] : ['0', `-${amount}`];
    await tx.$executeRaw`INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta") VALUES (${at.walletId}, ${id}, ${kind}, ${balanceDelta}::numeric, ${heldDelta}::numeric)`;
    await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + ${balanceDelta}::numeric, "held" = "held" + ${heldDelta}::numeric WHERE "id" = ${at.walletId}`;
  }
  return id;
}

test('a whole ledger passes: payouts processing, completed and failed beside credits', async () => {
  const at = await fundedWorkspace('100');
  expect(
    await auditAfter(async (tx) => {
      await payout(tx, at, 'processing', ['hold']);
      await payout(tx, at, 'completed', ['hold', 'settle']);
      await payout(tx, at, 'failed', ['hold', 'release']);
    }),
  ).toEqual([]);
  const out = await runCli(['ledger', 'audit'], cliEnv);
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, workspaceId: null, violations: [] });
});

test.each<[string, (tx: Prisma.TransactionClient, at: { workspaceId: number; walletId: number }) => Promise<unknown>, LedgerRule[]]>([
  [
    'a balance changed without an entry',
    (tx, at) => tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 1 WHERE "id" = ${at.walletId}`,
    ['wallet_balance_equals_entries', 'money_conserved'],
  ],
  [
    'a hold without its wallet update',
    (tx, at) => payout(tx, at, 'processing', ['hold']).then(() => tx.$executeRaw`UPDATE "Wallet" SET "held" = "held" - 10 WHERE "id" = ${at.walletId}`),
    ['wallet_held_equals_entries', 'wallet_held_equals_open_holds'],
  ],
  [
    'a completed payout never settled',
    (tx, at) => payout(tx, at, 'completed', ['hold']),
    ['wallet_held_equals_open_holds', 'payout_resolution_matches_status', 'money_conserved'],
  ],
  ['a failed payout whose hold was settled', (tx, at) => payout(tx, at, 'failed', ['hold', 'settle']), ['payout_resolution_matches_status', 'money_conserved']],
  ['a processing payout without a hold', (tx, at) => payout(tx, at, 'processing', []), ['payout_has_one_hold']],
  [
    'a payout whose amount changed after its hold',
    async (tx, at) => {
      const id = await payout(tx, at, 'completed', ['hold', 'settle']);
      await tx.$executeRaw`UPDATE "LedgerTransaction" SET "amount" = 12 WHERE "id" = ${id}`;
    },
    ['payout_has_one_hold', 'money_conserved'],
  ],
  [
    'a credit without its entry',
    async (tx, at) => {
      const credit = await tx.ledgerTransaction.findFirstOrThrow({ where: { walletId: at.walletId, type: 'credit' } });
      await tx.ledgerEntry.deleteMany({ where: { transactionId: credit.id } });
      await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" - 100 WHERE "id" = ${at.walletId}`;
    },
    ['credit_has_one_entry', 'money_conserved'],
  ],
])('the auditor finds %s', async (_name, corrupt, rules) => {
  const at = await fundedWorkspace('100');
  expect((await auditAfter((tx) => corrupt(tx, at), at.workspaceId)).sort()).toEqual([...rules].sort());
});

test.each<[string, (walletId: number, transactionId: number) => Prisma.Sql]>([
  ['a negative held amount', (w) => Prisma.sql`UPDATE "Wallet" SET "held" = -1 WHERE "id" = ${w}`],
  ['more held than the balance', (w) => Prisma.sql`UPDATE "Wallet" SET "held" = "balance" + 1 WHERE "id" = ${w}`],
  [
    'a credit entry that takes money',
    (w, t) => Prisma.sql`INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta") VALUES (${w}, ${t}, 'settle', 5, 0)`,
  ],
  ['a zero amount', (_w, t) => Prisma.sql`UPDATE "LedgerTransaction" SET "amount" = 0 WHERE "id" = ${t}`],
  ['an unknown status', (_w, t) => Prisma.sql`UPDATE "LedgerTransaction" SET "status" = 'lost' WHERE "id" = ${t}`],
])('the database refuses %s', async (_name, statement) => {
  const at = await fundedWorkspace('100');
  const credit = await env.db.ledgerTransaction.findFirstOrThrow({ where: { walletId: at.walletId } });
  await expect(env.db.$executeRaw(statement(at.walletId, credit.id))).rejects.toThrow(/check constraint/i);
});

test('cowrie ledger audit exits 1 and prints the violations; --workspace audits one workspace', async () => {
  const broken = await fundedWorkspace('100');
  const whole = await fundedWorkspace('50');
  await env.db.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 7 WHERE "id" = ${broken.walletId}`;
  try {
    const out = await runCli(['ledger', 'audit'], cliEnv);
    expect(out.code).toBe(1);
    const printed = JSON.parse(out.stdout);
    expect(printed.ok).toBe(false);
    expect(printed.violations).toContainEqual(
      expect.objectContaining({ rule: 'wallet_balance_equals_entries', walletId: broken.walletId, expected: '100.000000', actual: '107.000000' }),
    );
    expect(printed.violations).toContainEqual(expect.objectContaining({ rule: 'money_conserved', currency: 'NGN' }));
    const one = await runCli(['ledger', 'audit', '--workspace', String(whole.workspaceId)], cliEnv);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({
      ok: true,
      workspaceId: whole.workspaceId,
      checked: { wallets: expect.any(Number), transactions: 1, entries: 1 },
    });
    expect((await runCli(['ledger', 'audit', '--workspace', 'x'], cliEnv)).code).toBe(2);
  } finally {
    await env.db.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" - 7 WHERE "id" = ${broken.walletId}`;
  }
});

test('cowrie ledger audit names the row and its mode, reports live and test apart, and --mode audits one side', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const testWallet = (await findWallet(env.db, workspace.test_workspace_id, 'NGN'))!;
  // A test-side credit from nowhere: balanced, but no inbound payment, operator or payout is its source.
  const credit = await env.db.$transaction(async (tx) => {
    const row = await tx.ledgerTransaction.create({
      data: {
        workspaceId: workspace.test_workspace_id,
        walletId: testWallet.id,
        type: 'credit',
        direction: 'in',
        category: 'bonus',
        channel: 'adjustment',
        status: 'completed',
        reference: 'crd_from_nowhere',
        idempotencyKey: 'crd_from_nowhere',
        currency: 'NGN',
        amount: '5',
        title: 'Bonus',
        description: 'test',
        provider: 'operator',
      },
    });
    await tx.ledgerEntry.create({ data: { walletId: testWallet.id, transactionId: row.id, kind: 'credit', balanceDelta: '5', heldDelta: '0' } });
    await tx.wallet.update({ where: { id: testWallet.id }, data: { balance: { increment: 5 } } });
    return row;
  });
  try {
    const out = await runCli(['ledger', 'audit'], cliEnv);
    expect(out.code).toBe(1);
    const printed = JSON.parse(out.stdout);
    expect(printed).toMatchObject({
      ok: false,
      workspaceId: null,
      mode: null,
      modes: { live: { ok: true, violations: 0 }, test: { ok: false, violations: 1 } },
    });
    expect(printed.violations).toEqual([
      {
        rule: 'credit_has_source',
        message: expect.stringContaining('crd_from_nowhere'),
        mode: 'test',
        workspaceId: workspace.test_workspace_id,
        transactionId: credit.id,
        reference: 'crd_from_nowhere',
        walletId: testWallet.id,
      },
    ]);
    const live = await runCli(['ledger', 'audit', '--mode', 'live'], cliEnv);
    expect([live.code, JSON.parse(live.stdout).ok, JSON.parse(live.stdout).mode]).toEqual([0, true, 'live']);
    // --workspace with --mode names the business by its live id.
    const side = await runCli(['ledger', 'audit', '--workspace', String(workspace.id), '--mode', 'test'], cliEnv);
    expect(side.code).toBe(1);
    expect(JSON.parse(side.stdout)).toMatchObject({ workspaceId: workspace.test_workspace_id, mode: 'test', checked: { transactions: 1 } });
    expect((await runCli(['ledger', 'audit', '--mode', 'both'], cliEnv)).code).toBe(2);
  } finally {
    await env.db.$transaction([
      env.db.ledgerEntry.deleteMany({ where: { transactionId: credit.id } }),
      env.db.ledgerTransaction.delete({ where: { id: credit.id } }),
      env.db.wallet.update({ where: { id: testWallet.id }, data: { balance: { decrement: 5 } } }),
    ]);
  }
});
