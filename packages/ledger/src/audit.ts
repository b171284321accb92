import { Decimal } from '@cowrie/core';
import { Prisma, type DbOrTx } from '@cowrie/db';

/**
 * Checks the ledger invariant for one wallet: its balance equals the sum of its
 * entries' balance deltas and its held amount the sum of their held deltas.
 */
export async function auditWallet(db: DbOrTx, walletId: number) {
  const wallet = await db.wallet.findUniqueOrThrow({ where: { id: walletId } });
  const sums = await db.ledgerEntry.aggregate({ where: { walletId }, _sum: { balanceDelta: true, heldDelta: true } });
  const entriesBalance = new Decimal(sums._sum.balanceDelta?.toString() ?? '0');
  const entriesHeld = new Decimal(sums._sum.heldDelta?.toString() ?? '0');
  const balance = new Decimal(wallet.balance.toString());
  const held = new Decimal(wallet.held.toString());
  return {
    balance,
    held,
    entriesBalance,
    entriesHeld,
    consistent: balance.equals(entriesBalance) && held.equals(entriesHeld) && balance.minus(held).greaterThanOrEqualTo(0),
  };
}

/** The rules `auditLedger` checks; each violation names one. */
export type LedgerRule =
  /** A wallet's balance is not the sum of its entries' balance deltas. */
  | 'wallet_balance_equals_entries'
  /** A wallet's held amount is not the sum of its entries' held deltas. */
  | 'wallet_held_equals_entries'
  /** A wallet's held amount is not the sum of its open holds (holds of payouts still `processing`). */
  | 'wallet_held_equals_open_holds'
  /** A wallet holds a negative amount, or more than its balance. */
  | 'wallet_available_not_negative'
  /** An entry moves a wallet other than its transaction's. */
  | 'entry_on_transaction_wallet'
  /** A payout's hold is not its amount plus fees, or it has not exactly one. */
  | 'payout_has_one_hold'
  /** A `processing` payout has a settle or release; a final one has not exactly one resolution matching its status. */
  | 'payout_resolution_matches_status'
  /** A credit is not one `completed` transaction with one credit entry of its amount. */
  | 'credit_has_one_entry'
  /** Per currency: balances ≠ completed credits − completed payouts (amount + fees). */
  | 'money_conserved';

export interface LedgerViolation {
  rule: LedgerRule;
  /** What is wrong, in a sentence an operator can act on. */
  message: string;
  walletId?: number;
  transactionId?: number;
  currency?: string;
  /** The two figures that should agree, as exact decimals. */
  expected?: string;
  actual?: string;
}

export interface LedgerAudit {
  ok: boolean;
  workspaceId: number | null;
  checked: { wallets: number; transactions: number; entries: number };
  violations: LedgerViolation[];
}

const text = (value: unknown) => new Decimal(String(value ?? '0')).toFixed(6);

/**
 * Audits the whole ledger (or one workspace's) against the rules that hold by
 * construction, with exact NUMERIC arithmetic in Postgres:
 *
 * - per wallet: balance = Σ entries' balance deltas, held = Σ held deltas =
 *   Σ open holds, 0 ≤ held ≤ balance;
 * - per payout: exactly one hold of amount + fees; `processing` has no
 *   resolution, `completed` exactly one settle and `failed` exactly one
 *   release (each closing the whole hold); every entry on its transaction's wallet;
 * - per credit: `completed`, exactly one credit entry of its amount;
 * - per currency: Σ balances = Σ completed credits − Σ completed payouts
 *   (amount + fees): no money appears or vanishes.
 *
 * Read-only; run it any time (`npx cowrie ledger audit`). The reads are not one
 * snapshot, so on a busy ledger a payout that moves between two reads can show
 * up; run it again before acting on one.
 */
export async function auditLedger(db: DbOrTx, options: { workspaceId?: number } = {}): Promise<LedgerAudit> {
  const workspaceId = options.workspaceId ?? null;
  const onWallet = workspaceId === null ? Prisma.sql`TRUE` : Prisma.sql`w."workspaceId" = ${workspaceId}`;
  const onTransaction = workspaceId === null ? Prisma.sql`TRUE` : Prisma.sql`t."workspaceId" = ${workspaceId}`;
  const violations: LedgerViolation[] = [];

  const wallets = await db.$queryRaw<
    Array<{ id: number; currency: string; balance: unknown; held: unknown; entriesBalance: unknown; entriesHeld: unknown; openHolds: unknown }>
  >`
    SELECT w."id", w."currency", w."balance", w."held",
      COALESCE(e."balance", 0) AS "entriesBalance", COALESCE(e."held", 0) AS "entriesHeld", COALESCE(o."held", 0) AS "openHolds"
    FROM "Wallet" w
    LEFT JOIN (SELECT "walletId", sum("balanceDelta") AS "balance", sum("heldDelta") AS "held" FROM "LedgerEntry" GROUP BY "walletId") e ON e."walletId" = w."id"
    LEFT JOIN (
      SELECT h."walletId", sum(h."heldDelta") AS "held" FROM "LedgerEntry" h JOIN "LedgerTransaction" t ON t."id" = h."transactionId"
      WHERE h."kind" = 'hold' AND t."status" = 'processing' GROUP BY h."walletId"
    ) o ON o."walletId" = w."id"
    WHERE ${onWallet}
    ORDER BY w."id"`;
  for (const w of wallets) {
    const at = { walletId: w.id, currency: w.currency };
    if (text(w.balance) !== text(w.entriesBalance)) {
      violations.push({
        rule: 'wallet_balance_equals_entries',
        message: `wallet ${w.id}: balance ${text(w.balance)} but its entries sum to ${text(w.entriesBalance)}`,
        ...at,
        expected: text(w.entriesBalance),
        actual: text(w.balance),
      });
    }
    if (text(w.held) !== text(w.entriesHeld)) {
      violations.push({
        rule: 'wallet_held_equals_entries',
        message: `wallet ${w.id}: held ${text(w.held)} but its entries sum to ${text(w.entriesHeld)}`,
        ...at,
        expected: text(w.entriesHeld),
        actual: text(w.held),
      });
    }
    if (text(w.held) !== text(w.openHolds)) {
      violations.push({
        rule: 'wallet_held_equals_open_holds',
        message: `wallet ${w.id}: held ${text(w.held)} but its processing payouts hold ${text(w.openHolds)}`,
        ...at,
        expected: text(w.openHolds),
        actual: text(w.held),
      });
    }
    const held = new Decimal(text(w.held));
    if (held.isNegative() || new Decimal(text(w.balance)).minus(held).isNegative()) {
      violations.push({
        rule: 'wallet_available_not_negative',
        message: `wallet ${w.id}: balance ${text(w.balance)}, held ${text(w.held)}`,
        ...at,
        actual: text(w.held),
      });
    }
  }

  const misplaced = await db.$queryRaw<Array<{ transactionId: number; walletId: number }>>`
    SELECT DISTINCT e."transactionId", e."walletId" FROM "LedgerEntry" e JOIN "LedgerTransaction" t ON t."id" = e."transactionId"
    WHERE e."walletId" <> t."walletId" AND ${onTransaction} ORDER BY e."transactionId"`;
  for (const m of misplaced) {
    violations.push({
      rule: 'entry_on_transaction_wallet',
      message: `transaction ${m.transactionId} has an entry on wallet ${m.walletId}, not its own`,
      transactionId: m.transactionId,
      walletId: m.walletId,
    });
  }

  // Per transaction, what its entries did, beside what its type and status say they must have done.
  const transactions = await db.$queryRaw<
    Array<{
      id: number;
      walletId: number;
      type: string;
      status: string;
      total: unknown;
      amount: unknown;
      holds: bigint;
      held: unknown;
      settles: bigint;
      settled: unknown;
      releases: bigint;
      released: unknown;
      credits: bigint;
      credited: unknown;
      entries: bigint;
    }>
  >`
    SELECT t."id", t."walletId", t."type", t."status", t."amount" + t."fees" AS "total", t."amount",
      count(*) FILTER (WHERE e."kind" = 'hold') AS "holds", COALESCE(sum(e."heldDelta") FILTER (WHERE e."kind" = 'hold'), 0) AS "held",
      count(*) FILTER (WHERE e."kind" = 'settle') AS "settles", COALESCE(-sum(e."balanceDelta") FILTER (WHERE e."kind" = 'settle'), 0) AS "settled",
      count(*) FILTER (WHERE e."kind" = 'release') AS "releases", COALESCE(-sum(e."heldDelta") FILTER (WHERE e."kind" = 'release'), 0) AS "released",
      count(*) FILTER (WHERE e."kind" = 'credit') AS "credits", COALESCE(sum(e."balanceDelta") FILTER (WHERE e."kind" = 'credit'), 0) AS "credited",
      count(e."id") AS "entries"
    FROM "LedgerTransaction" t LEFT JOIN "LedgerEntry" e ON e."transactionId" = t."id"
    WHERE ${onTransaction}
    GROUP BY t."id"
    ORDER BY t."id"`;
  let entries = 0;
  for (const t of transactions) {
    entries += Number(t.entries);
    const at = { transactionId: t.id, walletId: t.walletId };
    const [holds, settles, releases, credits] = [Number(t.holds), Number(t.settles), Number(t.releases), Number(t.credits)];
    if (t.type === 'debit') {
      if (holds !== 1 || text(t.held) !== text(t.total)) {
        violations.push({
          rule: 'payout_has_one_hold',
          message: `payout ${t.id}: ${holds} hold(s) of ${text(t.held)} for amount + fees ${text(t.total)}`,
          ...at,
          expected: text(t.total),
          actual: text(t.held),
        });
      }
      const resolution =
        t.status === 'processing'
          ? settles === 0 && releases === 0
          : t.status === 'completed'
            ? settles === 1 && releases === 0 && text(t.settled) === text(t.held)
            : t.status === 'failed'
              ? releases === 1 && settles === 0 && text(t.released) === text(t.held)
              : false;
      if (!resolution || credits !== 0) {
        violations.push({
          rule: 'payout_resolution_matches_status',
          message: `payout ${t.id} is ${t.status} with ${settles} settle(s), ${releases} release(s) and ${credits} credit(s)`,
          ...at,
        });
      }
    } else if (t.status !== 'completed' || credits !== 1 || holds + settles + releases !== 0 || text(t.credited) !== text(t.amount)) {
      violations.push({
        rule: 'credit_has_one_entry',
        message: `credit ${t.id} is ${t.status} with ${credits} credit entr(ies) of ${text(t.credited)} for ${text(t.amount)}`,
        ...at,
        expected: text(t.amount),
        actual: text(t.credited),
      });
    }
  }

  // Money in minus money out, per currency, from the transactions alone, against the wallets.
  const currencies = await db.$queryRaw<Array<{ currency: string; balances: unknown; expected: unknown }>>`
    SELECT c."currency", COALESCE(b."balances", 0) AS "balances", COALESCE(m."expected", 0) AS "expected"
    FROM (SELECT DISTINCT w."currency" FROM "Wallet" w WHERE ${onWallet}) c
    LEFT JOIN (SELECT w."currency", sum(w."balance") AS "balances" FROM "Wallet" w WHERE ${onWallet} GROUP BY w."currency") b ON b."currency" = c."currency"
    LEFT JOIN (
      SELECT w."currency",
        sum(CASE WHEN t."type" = 'credit' THEN t."amount" ELSE -(t."amount" + t."fees") END) AS "expected"
      FROM "LedgerTransaction" t JOIN "Wallet" w ON w."id" = t."walletId"
      WHERE t."status" = 'completed' AND ${onTransaction}
      GROUP BY w."currency"
    ) m ON m."currency" = c."currency"
    ORDER BY c."currency"`;
  for (const c of currencies) {
    if (text(c.balances) !== text(c.expected)) {
      violations.push({
        rule: 'money_conserved',
        message: `${c.currency}: wallets hold ${text(c.balances)} but completed credits minus completed payouts come to ${text(c.expected)}`,
        currency: c.currency,
        expected: text(c.expected),
        actual: text(c.balances),
      });
    }
  }

  return { ok: violations.length === 0, workspaceId, checked: { wallets: wallets.length, transactions: transactions.length, entries }, violations };
}
