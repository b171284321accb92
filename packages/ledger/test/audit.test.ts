// Risk: the ledger auditor calls a ledger clean that is not: a transaction on
// another workspace's (or mode's, or currency's) wallet, money credited from
// nowhere (no inbound payment, no operator, no payout it reverses), a payout
// reversal that does not match its payout, live and test mixed in one figure,
// or a report pieced together from different moments of a busy database. Each
// check is shown against this file's own database corrupted on purpose, inside
// a transaction rolled back after the audit, beside the same rows written
// right, which it must pass. The CLI's side (exit 1, the JSON report) is
// packages/cli/test/ledger-audit.test.ts.
import { Client } from 'pg';
import { Prisma } from '@cowrie/db';
import { createWorkspaceWithKey, waitFor, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '../testing';
import { auditLedger, findWallet, type LedgerAudit } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

type Tx = Prisma.TransactionClient;
interface Side {
  workspaceId: number;
  walletId: number;
  usdWalletId: number;
}
interface Business {
  live: Side;
  test: Side;
}
interface Row {
  id: number;
  reference: string;
}

const unique = () => Math.random().toString(16).slice(2);

/** A business with 100 NGN on each side, funded as an operator does (`cowrie wallet credit`). */
async function business(): Promise<Business> {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const side = async (workspaceId: number): Promise<Side> => {
    await fundWallet(env.db, workspaceId, '100');
    const [ngn, usd] = await Promise.all([findWallet(env.db, workspaceId, 'NGN'), findWallet(env.db, workspaceId, 'USD')]);
    return { workspaceId, walletId: ngn!.id, usdWalletId: usd!.id };
  };
  return { live: await side(workspace.id), test: await side(workspace.test_workspace_id) };
}

interface CreditRow {
  workspaceId: number;
  walletId: number;
  amount?: string;
  currency?: string;
  category?: string;
  channel?: string;
  provider?: string;
  key?: string;
  metadata?: Record<string, unknown>;
}

/** A completed credit, its entry and the balance raised, as creditWallet writes them (an operator's adjustment unless told). */
async function credit(tx: Tx, c: CreditRow): Promise<Row> {
  const amount = c.amount ?? '10';
  const reference = `crd_${unique()}`;
  const [row] = await tx.$queryRaw<Row[]>`
    INSERT INTO "LedgerTransaction" ("workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference", "idempotencyKey",
      "currency", "amount", "fees", "title", "description", "provider", "metadata", "updatedAt")
    VALUES (${c.workspaceId}, ${c.walletId}, 'credit', 'in', ${c.category ?? 'adjustment'}, ${c.channel ?? 'adjustment'}, 'completed', ${reference},
      ${c.key ?? reference}, ${c.currency ?? 'NGN'}, ${amount}::numeric, 0, 'Credit', 'test', ${c.provider ?? 'operator'}, ${JSON.stringify(c.metadata ?? {})}::jsonb, now())
    RETURNING "id", "reference"`;
  await tx.$executeRaw`INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta") VALUES (${c.walletId}, ${row!.id}, 'credit', ${amount}::numeric, 0)`;
  await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + ${amount}::numeric WHERE "id" = ${c.walletId}`;
  return row!;
}

/** An inbound payment row as the inbound path leaves it (`credited`, naming its credit). */
async function inboundPayment(
  tx: Tx,
  p: { workspaceId: number | null; transactionId: number | null; amount?: string; currency?: string; status?: string },
): Promise<number> {
  const [row] = await tx.$queryRaw<Array<{ id: number }>>`
    INSERT INTO "InboundPayment" ("provider", "providerReference", "accountNumber", "amount", "currency", "status", "workspaceId", "ledgerTransactionId", "updatedAt")
    VALUES ('sandbox', ${`trf_${unique()}`}, '0123456789', ${p.amount ?? '10'}::numeric, ${p.currency ?? 'NGN'}, ${p.status ?? 'credited'}, ${p.workspaceId},
      ${p.transactionId}, now())
    RETURNING "id"`;
  return row!.id;
}

/** A transfer paid into a reserved account: the inbound payment and the credit it names. */
async function collection(tx: Tx, at: Side, amount = '10') {
  const row = await credit(tx, { ...at, amount, category: 'collection', channel: 'reserved_va', provider: 'sandbox', key: `inbound:sandbox:${unique()}` });
  return { ...row, paymentId: await inboundPayment(tx, { workspaceId: at.workspaceId, transactionId: row.id, amount }) };
}

/** A payout of 10 + 0.5 fees in `status`, with the entries the ledger writes for it (a reversed payout was settled first). */
async function payout(tx: Tx, at: Side, status: 'processing' | 'completed' | 'failed' | 'reversed'): Promise<Row> {
  const reference = `snd_${unique()}`;
  const [row] = await tx.$queryRaw<Row[]>`
    INSERT INTO "LedgerTransaction" ("workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference", "idempotencyKey",
      "currency", "amount", "fees", "title", "description", "provider", "updatedAt")
    VALUES (${at.workspaceId}, ${at.walletId}, 'debit', 'out', 'send', 'transfer', ${status}, ${reference}, ${reference}, 'NGN', 10, 0.5, 'Transfer', 'test',
      'sandbox', now())
    RETURNING "id", "reference"`;
  const kinds = status === 'processing' ? ['hold'] : status === 'failed' ? ['hold', 'release'] : ['hold', 'settle'];
  for (const kind of kinds) {
    const [balanceDelta, heldDelta] = kind === 'hold' ? ['0', '10.5'] : kind === 'settle' ? ['-10.5', '-10.5'] : ['0', '-10.5'];
    await tx.$executeRaw`INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta")
      VALUES (${at.walletId}, ${row!.id}, ${kind}, ${balanceDelta}::numeric, ${heldDelta}::numeric)`;
    await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + ${balanceDelta}::numeric, "held" = "held" + ${heldDelta}::numeric WHERE "id" = ${at.walletId}`;
  }
  return row!;
}

/** A payout reversal credit as the ledger writes it: amount + fees back, keyed and marked by the payout's reference. */
function reversal(tx: Tx, at: Pick<CreditRow, 'workspaceId' | 'walletId' | 'currency'>, of: string, amount = '10.5', key = `reversal:${of}`) {
  return credit(tx, { ...at, amount, category: 'reversal', channel: 'payout', provider: 'sandbox', key, metadata: { reversal_of: of } });
}

/** Runs `corrupt` and the audit in one REPEATABLE READ transaction that is rolled back: the database is left whole. */
async function auditAfter(corrupt: (tx: Tx) => Promise<unknown>, options: Parameters<typeof auditLedger>[1] = {}): Promise<LedgerAudit> {
  let audit: LedgerAudit | undefined;
  await env.db
    .$transaction(
      async (tx) => {
        await corrupt(tx);
        audit = await auditLedger(tx, options);
        throw new Error('rollback');
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: 30_000 },
    )
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  return audit!;
}

test('a ledger of every legitimate row passes, each side counted on its own', async () => {
  const b = await business();
  const writeAll = async (tx: Tx) => {
    for (const side of [b.live, b.test]) {
      await collection(tx, side);
      await payout(tx, side, 'processing');
      await payout(tx, side, 'completed');
      await payout(tx, side, 'failed');
      const reversed = await payout(tx, side, 'reversed');
      await reversal(tx, side, reversed.reference);
    }
  };
  const whole = await auditAfter(writeAll);
  expect(whole.violations).toEqual([]);
  expect(whole).toMatchObject({ ok: true, modes: { live: { ok: true, violations: 0 }, test: { ok: true, violations: 0 } } });

  // One workspace: its funding, collection, four payouts and one reversal; 1 + 1 + 7 + 1 entries; its six wallets.
  const testSide = await auditAfter(writeAll, { workspaceId: b.test.workspaceId });
  expect(testSide).toMatchObject({
    ok: true,
    workspaceId: b.test.workspaceId,
    checked: { wallets: 6, transactions: 7, entries: 10 },
    modes: {
      live: { ok: true, checked: { wallets: 0, transactions: 0, entries: 0 }, violations: 0 },
      test: { ok: true, checked: { wallets: 6, transactions: 7, entries: 10 }, violations: 0 },
    },
  });
});

describe("every transaction's wallet is its workspace's, in its currency", () => {
  test.each<[string, (b: Business, other: Business) => CreditRow, string]>([
    ['a live credit on its test side’s wallet', (b) => ({ workspaceId: b.live.workspaceId, walletId: b.test.walletId }), 'live'],
    ['a test credit on the live side’s wallet', (b) => ({ workspaceId: b.test.workspaceId, walletId: b.live.walletId }), 'test'],
    ['a credit on another business’s wallet', (b, other) => ({ workspaceId: b.live.workspaceId, walletId: other.live.walletId }), 'live'],
    ['an NGN credit on the USD wallet', (b) => ({ workspaceId: b.live.workspaceId, walletId: b.live.usdWalletId, currency: 'NGN' }), 'live'],
    ['a credit on a wallet that does not exist', (b) => ({ workspaceId: b.test.workspaceId, walletId: 2_000_000_000 }), 'test'],
  ])('%s is reported, naming the row', async (_name, misplace, mode) => {
    const [b, other] = [await business(), await business()];
    const row = misplace(b, other);
    let moved: Row | undefined;
    const audit = await auditAfter(async (tx) => {
      // Its entry and its balance went to that wallet too: only the wallet itself is wrong.
      moved = await credit(tx, row);
    });
    expect(audit.violations).toEqual([
      expect.objectContaining({
        rule: 'transaction_wallet_matches',
        mode,
        workspaceId: row.workspaceId,
        transactionId: moved!.id,
        reference: moved!.reference,
        walletId: row.walletId,
      }),
    ]);
    expect(audit.violations[0]!.message).toContain(moved!.reference);
    expect(audit.ok).toBe(false);
  });
});

describe('live and test are audited and reported apart', () => {
  test('a fault on the test side is the test side’s; --mode live does not see it', async () => {
    const b = await business();
    const corrupt = (tx: Tx) => tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 1 WHERE "id" = ${b.test.walletId}`;
    const audit = await auditAfter(corrupt);
    expect(audit.violations).toEqual([
      expect.objectContaining({ rule: 'wallet_balance_equals_entries', mode: 'test', walletId: b.test.walletId, workspaceId: b.test.workspaceId }),
      expect.objectContaining({ rule: 'money_conserved', mode: 'test', currency: 'NGN', expected: expect.any(String), actual: expect.any(String) }),
    ]);
    expect(audit.modes).toMatchObject({ live: { ok: true, violations: 0 }, test: { ok: false, violations: 2 } });
    const live = await auditAfter(corrupt, { mode: 'live' });
    expect(live).toMatchObject({ ok: true, mode: 'live', violations: [], modes: { test: { checked: { wallets: 0 } } } });
  });

  test('money that left the live side for the test side is out on each, though the two sum to nothing', async () => {
    const b = await business();
    let row: Row | undefined;
    const audit = await auditAfter(async (tx) => {
      // A live credit whose entry and balance landed on the test wallet.
      row = await credit(tx, { workspaceId: b.live.workspaceId, walletId: b.live.walletId });
      await tx.$executeRaw`UPDATE "LedgerEntry" SET "walletId" = ${b.test.walletId} WHERE "transactionId" = ${row.id}`;
      await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" - 10 WHERE "id" = ${b.live.walletId}`;
      await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 10 WHERE "id" = ${b.test.walletId}`;
    });
    expect(audit.violations).toEqual([
      expect.objectContaining({ rule: 'entry_on_transaction_wallet', mode: 'live', transactionId: row!.id, walletId: b.test.walletId }),
      expect.objectContaining({ rule: 'money_conserved', mode: 'live', currency: 'NGN' }),
      expect.objectContaining({ rule: 'money_conserved', mode: 'test', currency: 'NGN' }),
    ]);
  });
});

describe('every credit traces to its source', () => {
  test.each<[string, (tx: Tx, b: Business) => Promise<{ credit?: Row; paymentId?: number }>, string[]]>([
    ['a credit of no known kind', async (tx, b) => ({ credit: await credit(tx, { ...b.live, category: 'bonus' }) }), ['credit_has_source']],
    ['an adjustment no operator made', async (tx, b) => ({ credit: await credit(tx, { ...b.live, provider: 'sandbox' }) }), ['credit_has_source']],
    [
      'a collection credit no inbound payment names',
      async (tx, b) => ({ credit: await credit(tx, { ...b.test, category: 'collection', channel: 'collection_va', provider: 'sandbox' }) }),
      ['credit_has_source'],
    ],
    [
      'a collection credit two inbound payments name',
      async (tx, b) => {
        const paid = await collection(tx, b.live);
        await inboundPayment(tx, { workspaceId: b.live.workspaceId, transactionId: paid.id });
        return { credit: paid };
      },
      ['credit_has_source'],
    ],
    [
      'a collection credit of more than its inbound payment',
      async (tx, b) => {
        const paid = await collection(tx, b.live);
        await tx.$executeRaw`UPDATE "InboundPayment" SET "amount" = 9 WHERE "id" = ${paid.paymentId}`;
        return { credit: paid, paymentId: paid.paymentId };
      },
      ['credit_has_source', 'inbound_payment_has_credit'],
    ],
    [
      'a collection credit whose inbound payment was left unmatched',
      async (tx, b) => {
        const paid = await collection(tx, b.live);
        await tx.$executeRaw`UPDATE "InboundPayment" SET "status" = 'unmatched', "reason" = 'unknown_account' WHERE "id" = ${paid.paymentId}`;
        return { credit: paid, paymentId: paid.paymentId };
      },
      ['credit_has_source', 'inbound_payment_has_credit'],
    ],
    [
      'a collection credit whose inbound payment was paid to the test side',
      async (tx, b) => {
        const paid = await collection(tx, b.live);
        await tx.$executeRaw`UPDATE "InboundPayment" SET "workspaceId" = ${b.test.workspaceId} WHERE "id" = ${paid.paymentId}`;
        return { credit: paid, paymentId: paid.paymentId };
      },
      ['credit_has_source', 'inbound_payment_has_credit'],
    ],
    [
      'a credited inbound payment whose credit does not exist',
      async (tx, b) => ({ paymentId: await inboundPayment(tx, { workspaceId: b.live.workspaceId, transactionId: null }) }),
      ['inbound_payment_has_credit'],
    ],
  ])('%s is reported, naming the row', async (_name, corrupt, rules) => {
    const b = await business();
    let rows: { credit?: Row; paymentId?: number } = {};
    const audit = await auditAfter(async (tx) => {
      rows = await corrupt(tx, b);
    });
    expect(audit.violations.map((v) => v.rule).sort()).toEqual([...rules].sort());
    for (const v of audit.violations) {
      if (v.rule === 'credit_has_source') {
        expect(v).toMatchObject({ transactionId: rows.credit!.id, reference: rows.credit!.reference, walletId: expect.any(Number), mode: expect.any(String) });
        expect(v.message).toContain(rows.credit!.reference);
      } else {
        expect(v).toMatchObject({ inboundPaymentId: rows.paymentId, mode: expect.any(String) });
      }
    }
  });

  test('a release that raises a balance is found even without the database’s own check', async () => {
    const b = await business();
    let failed: Row | undefined;
    const audit = await auditAfter(async (tx) => {
      // Only in this rolled-back transaction: the CHECK that refuses it is gone.
      await tx.$executeRaw`ALTER TABLE "LedgerEntry" DROP CONSTRAINT "LedgerEntry_kind_moves"`;
      failed = await payout(tx, b.live, 'failed');
      await tx.$executeRaw`UPDATE "LedgerEntry" SET "balanceDelta" = 10.5 WHERE "transactionId" = ${failed.id} AND "kind" = 'release'`;
      await tx.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" + 10.5 WHERE "id" = ${b.live.walletId}`;
    });
    expect(audit.violations).toEqual([
      expect.objectContaining({
        rule: 'entry_moves_as_its_kind',
        mode: 'live',
        transactionId: failed!.id,
        reference: failed!.reference,
        walletId: b.live.walletId,
      }),
      expect.objectContaining({ rule: 'money_conserved', mode: 'live', currency: 'NGN' }),
    ]);
    expect(audit.violations[0]!.entryId).toEqual(expect.any(String));
  });
});

describe('a payout reversal credit matches the payout it reverses, once', () => {
  test.each<[string, (tx: Tx, b: Business, other: Business) => Promise<{ credit?: Row; payout?: Row }>, string[], RegExp]>([
    [
      'a reversal of a payout that does not exist',
      async (tx, b) => ({ credit: await reversal(tx, b.live, 'snd_nothing') }),
      ['reversal_matches_payout'],
      /no payout/,
    ],
    [
      'a reversal of a payout that is a credit',
      async (tx, b) => {
        const funding = await tx.ledgerTransaction.findFirstOrThrow({ where: { walletId: b.live.walletId, type: 'credit' } });
        return { credit: await reversal(tx, b.live, funding.reference) };
      },
      ['reversal_matches_payout'],
      /no payout/,
    ],
    [
      'a reversal of another business’s payout',
      async (tx, b, other) => {
        const reversed = await payout(tx, other.live, 'reversed');
        return { credit: await reversal(tx, b.live, reversed.reference) };
      },
      ['reversal_matches_payout'],
      /workspace/,
    ],
    [
      'a reversal of a live payout onto the test side',
      async (tx, b) => {
        const reversed = await payout(tx, b.live, 'reversed');
        return { credit: await reversal(tx, b.test, reversed.reference) };
      },
      ['reversal_matches_payout'],
      /workspace/,
    ],
    [
      'a reversal into another wallet of the workspace',
      async (tx, b) => {
        const reversed = await payout(tx, b.live, 'reversed');
        return { credit: await reversal(tx, { workspaceId: b.live.workspaceId, walletId: b.live.usdWalletId, currency: 'USD' }, reversed.reference) };
      },
      ['reversal_matches_payout'],
      /wallet .*currency/,
    ],
    [
      'a reversal of a payout that is completed, not reversed',
      async (tx, b) => {
        const completed = await payout(tx, b.live, 'completed');
        return { credit: await reversal(tx, b.live, completed.reference) };
      },
      ['reversal_matches_payout'],
      /completed/,
    ],
    [
      'a reversal of the amount without the fees',
      async (tx, b) => {
        const reversed = await payout(tx, b.live, 'reversed');
        return { credit: await reversal(tx, b.live, reversed.reference, '10') };
      },
      ['reversal_matches_payout'],
      /10\.000000.*10\.500000/,
    ],
    [
      'a reversal under another key',
      async (tx, b) => {
        const reversed = await payout(tx, b.live, 'reversed');
        return { credit: await reversal(tx, b.live, reversed.reference, '10.5', `refund:${reversed.reference}`) };
      },
      ['reversal_matches_payout'],
      /key/,
    ],
    [
      'a reversed payout without its reversal credit',
      async (tx, b) => ({ payout: await payout(tx, b.live, 'reversed') }),
      ['payout_reversed_once'],
      /0 reversal/,
    ],
    [
      'two reversals of one payout',
      async (tx, b) => {
        const reversed = await payout(tx, b.live, 'reversed');
        await reversal(tx, b.live, reversed.reference);
        // The unique key refuses a second `reversal:<ref>`: the second comes under another key.
        return { payout: reversed, credit: await reversal(tx, b.live, reversed.reference, '10.5', `reversal:${reversed.reference}:2`) };
      },
      ['payout_reversed_once', 'reversal_matches_payout'],
      /2 reversal|key/,
    ],
  ])('%s is reported, naming the row', async (_name, corrupt, rules, message) => {
    const [b, other] = [await business(), await business()];
    let rows: { credit?: Row; payout?: Row } = {};
    const audit = await auditAfter(async (tx) => {
      rows = await corrupt(tx, b, other);
    });
    expect(audit.violations.map((v) => v.rule).sort()).toEqual([...rules].sort());
    for (const v of audit.violations) {
      const row = v.rule === 'payout_reversed_once' ? rows.payout! : rows.credit!;
      expect(v).toMatchObject({ transactionId: row.id, reference: row.reference, walletId: expect.any(Number), mode: expect.any(String) });
      expect(v.message).toContain(row.reference);
      expect(v.message).toMatch(message);
    }
  });
});

test('the audit reads one snapshot: what commits while it runs is in none of its reads', async () => {
  const b = await business();
  const before = await auditLedger(env.db);
  expect(before.violations).toEqual([]);
  // Holds the audit up at its first read of inbound payments, after its first reads.
  const locker = new Client({ connectionString: env.config.DATABASE_URL });
  await locker.connect();
  let sneaked: Row | undefined;
  let running: Promise<{ audit?: LedgerAudit; error?: unknown }> | undefined;
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE "InboundPayment" IN ACCESS EXCLUSIVE MODE');
    running = auditLedger(env.db).then(
      (audit) => ({ audit }),
      (error: unknown) => ({ error }),
    );
    await waitFor(async () => {
      const [row] = await env.db.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      return row!.n > 0;
    });
    // While it waits, a credit from nowhere commits (its entry and balance with it).
    sneaked = await env.db.$transaction((tx) => credit(tx, { ...b.live, category: 'bonus' }));
  } finally {
    await locker.query('ROLLBACK');
    await locker.end();
  }
  const { audit, error } = await running!;
  expect(error).toBeUndefined();
  // Every read, before and after the wait, saw the ledger as it was when the audit began.
  expect(audit!.violations).toEqual([]);
  expect(audit!.checked).toEqual(before.checked);

  const next = await auditLedger(env.db);
  expect(next.violations).toEqual([expect.objectContaining({ rule: 'credit_has_source', transactionId: sneaked!.id })]);
  expect(next.checked.transactions).toBe(before.checked.transactions + 1);
  // Undone, so the file's own audit finds the ledger whole.
  await env.db.$transaction([
    env.db.ledgerEntry.deleteMany({ where: { transactionId: sneaked!.id } }),
    env.db.ledgerTransaction.delete({ where: { id: sneaked!.id } }),
    env.db.$executeRaw`UPDATE "Wallet" SET "balance" = "balance" - 10 WHERE "id" = ${b.live.walletId}`,
  ]);
  expect((await auditLedger(env.db)).violations).toEqual([]);
});

test('an audit inside a caller’s transaction refuses one that is not a snapshot', async () => {
  await expect(env.db.$transaction((tx) => auditLedger(tx))).rejects.toThrow(/REPEATABLE READ/);
});
