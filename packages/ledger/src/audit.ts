import { Decimal, type Mode } from '@cowrie/core';
import { Prisma, type DbOrTx, type PrismaClient } from '@cowrie/db';

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
  /**
   * An entry does not move the balances the way its kind says (a `credit` raises
   * the balance only, a `hold` raises held only, a `settle` lowers both alike, a
   * `release` lowers held only), or its kind is none of these. The database's
   * CHECK refuses such an entry; this finds one written where the CHECK is missing.
   */
  | 'entry_moves_as_its_kind'
  /** A transaction's wallet does not exist, belongs to another workspace (another business, or the other mode), or holds another currency. */
  | 'transaction_wallet_matches'
  /** A payout's hold is not its amount plus fees, or it has not exactly one. */
  | 'payout_has_one_hold'
  /**
   * A `processing` payout has a settle or release; a final one has not exactly
   * one resolution matching its status (`completed` and `reversed`: a settle,
   * `failed`: a release), each of the whole hold.
   */
  | 'payout_resolution_matches_status'
  /** A credit is not one `completed` transaction with one credit entry of its amount. */
  | 'credit_has_one_entry'
  /**
   * A credit traces to no source: a `collection` credit that is not named by
   * exactly one inbound payment, `credited`, of its workspace, amount and
   * currency; an `adjustment` not made by an operator (channel `adjustment`,
   * provider `operator`); or a credit of any other category. Reversal credits
   * have their own rules.
   */
  | 'credit_has_source'
  /** An inbound payment is `credited` without a collection credit of its workspace, amount and currency, or names a credit though it is not `credited`. */
  | 'inbound_payment_has_credit'
  /**
   * A payout reversal credit (category `reversal`) does not match the payout
   * `metadata.reversal_of` names: no such payout, another workspace, wallet or
   * currency, a payout not `reversed`, an amount other than the payout's amount
   * + fees, a key other than `reversal:<payout reference>`, or a channel other than `payout`.
   */
  | 'reversal_matches_payout'
  /** A `reversed` payout has not exactly one reversal credit, or a payout has more than one. */
  | 'payout_reversed_once'
  /** Per mode and currency: balances ≠ completed credits − completed and reversed payouts (amount + fees). */
  | 'money_conserved';

export interface LedgerViolation {
  rule: LedgerRule;
  /** What is wrong, in a sentence an operator can act on; it names the row (transaction reference, wallet id). */
  message: string;
  /** The mode (`live` or `test`) of the workspace the row belongs to; absent when that workspace does not exist. */
  mode?: Mode;
  workspaceId?: number;
  walletId?: number;
  transactionId?: number;
  /** The transaction's reference (`snd_…`, `crd_…`). */
  reference?: string;
  /** The ledger entry's id (a 64-bit integer, as a string). */
  entryId?: string;
  inboundPaymentId?: number;
  currency?: string;
  /** The two figures that should agree, as exact decimals. */
  expected?: string;
  actual?: string;
}

export interface LedgerAuditCounts {
  wallets: number;
  transactions: number;
  entries: number;
}

/** One mode's share of an audit: what was read on that side and how many violations are that side's. */
export interface LedgerModeAudit {
  ok: boolean;
  checked: LedgerAuditCounts;
  violations: number;
}

export interface LedgerAudit {
  ok: boolean;
  /** The workspace audited, or null for all. */
  workspaceId: number | null;
  /** The mode audited, or null for both. */
  mode: Mode | null;
  checked: LedgerAuditCounts;
  /** Live and test apart: money never moves between them, so each is whole on its own. */
  modes: Record<Mode, LedgerModeAudit>;
  violations: LedgerViolation[];
}

export interface LedgerAuditOptions {
  /** Only this workspace (either side of a business: a workspace row is one mode). */
  workspaceId?: number;
  /** Only the workspaces of this mode. */
  mode?: Mode;
}

const MODES: readonly Mode[] = ['live', 'test'];

/** How long the audit's transaction may run: a large ledger is read whole. */
const AUDIT_TIMEOUT_MS = 15 * 60_000;

const text = (value: unknown) => new Decimal(String(value ?? '0')).toFixed(6);
const modeOf = (mode: string | null): { mode?: Mode } => (mode === 'live' || mode === 'test' ? { mode } : {});

/**
 * Audits the whole ledger (or one workspace's, or one mode's) against the
 * rules that hold by construction, with exact NUMERIC arithmetic in Postgres.
 * Each rule is one set-based statement returning only the rows that break it:
 *
 * - per wallet: balance = Σ entries' balance deltas, held = Σ held deltas =
 *   Σ open holds, 0 ≤ held ≤ balance;
 * - per entry: on its transaction's wallet, moving the balances as its kind says;
 * - per transaction: its wallet is its workspace's and holds its currency;
 * - per payout: exactly one hold of amount + fees; `processing` has no
 *   resolution, `completed` and `reversed` exactly one settle and `failed`
 *   exactly one release (each closing the whole hold);
 * - per credit: `completed`, exactly one credit entry of its amount, and a
 *   source: an inbound payment, an operator's adjustment, or a payout it
 *   reverses (amount + fees back to the payout's wallet, once, the payout
 *   `reversed`). A released hold raises no balance: it only gives back what
 *   its own payout held. So no balance rises without a source;
 * - per inbound payment: `credited` with exactly its credit;
 * - per mode and currency: Σ balances = Σ completed credits − Σ completed and
 *   reversed payouts (amount + fees): no money appears or vanishes, and none
 *   crosses between live and test.
 *
 * Every read is in one REPEATABLE READ, READ ONLY transaction: the report is
 * the ledger at one instant, so on a busy system a payout that moves while it
 * runs gives no false alarm, and nothing committed before it began is missed.
 * Given a transaction (`tx`), it reads in that one, which must be REPEATABLE
 * READ or SERIALIZABLE (tests audit their own uncommitted rows this way).
 * Run it any time: `npx cowrie ledger audit`.
 */
export async function auditLedger(db: DbOrTx, options: LedgerAuditOptions = {}): Promise<LedgerAudit> {
  if (isClient(db)) {
    return db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SET TRANSACTION READ ONLY`;
        return readLedger(tx, options);
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 30_000, timeout: AUDIT_TIMEOUT_MS },
    );
  }
  const [isolation] = await db.$queryRaw<Array<{ level: string }>>`SELECT current_setting('transaction_isolation') AS "level"`;
  if (isolation?.level !== 'repeatable read' && isolation?.level !== 'serializable') {
    throw new Error(`auditLedger in a caller's transaction needs it REPEATABLE READ or SERIALIZABLE (one snapshot), not ${isolation?.level}`);
  }
  return readLedger(db, options);
}

/** The client, not an interactive transaction (which has no `$connect`). */
const isClient = (db: DbOrTx): db is PrismaClient => '$connect' in db;

async function readLedger(db: Prisma.TransactionClient, options: LedgerAuditOptions): Promise<LedgerAudit> {
  const workspaceId = options.workspaceId ?? null;
  const mode = options.mode ?? null;
  /** The rows of the audited workspaces: `workspace` is the row's workspace id, `x` its (left-joined) Workspace. */
  const scope = (workspace: string, x = 'x') =>
    Prisma.sql`(${workspaceId === null ? Prisma.sql`TRUE` : Prisma.sql`${Prisma.raw(workspace)} = ${workspaceId}`} AND ${
      mode === null ? Prisma.sql`TRUE` : Prisma.sql`${Prisma.raw(`${x}."mode"`)} = ${mode}`
    })`;
  const violations: LedgerViolation[] = [];

  // Wallets against their entries and open holds. The first read: the snapshot every later read shares.
  const wallets = await db.$queryRaw<
    Array<{
      id: number;
      workspaceId: number;
      mode: string;
      currency: string;
      balance: unknown;
      held: unknown;
      entriesBalance: unknown;
      entriesHeld: unknown;
      openHolds: unknown;
    }>
  >`
    WITH scoped AS (
      SELECT w."id", w."workspaceId", x."mode", w."currency", w."balance", w."held"
      FROM "Wallet" w JOIN "Workspace" x ON x."id" = w."workspaceId"
      WHERE ${scope('w."workspaceId"')}
    ), sums AS (
      SELECT "walletId", sum("balanceDelta") AS "balance", sum("heldDelta") AS "held"
      FROM "LedgerEntry" WHERE "walletId" IN (SELECT "id" FROM scoped) GROUP BY "walletId"
    ), open AS (
      -- The holds of processing payouts (few, found by status), on whichever wallet each hold is.
      SELECT h."walletId", sum(h."heldDelta") AS "held"
      FROM "LedgerTransaction" t JOIN "LedgerEntry" h ON h."transactionId" = t."id" AND h."kind" = 'hold'
      WHERE t."status" = 'processing' AND h."walletId" IN (SELECT "id" FROM scoped)
      GROUP BY h."walletId"
    )
    SELECT s."id", s."workspaceId", s."mode", s."currency", s."balance", s."held",
      COALESCE(m."balance", 0) AS "entriesBalance", COALESCE(m."held", 0) AS "entriesHeld", COALESCE(o."held", 0) AS "openHolds"
    FROM scoped s LEFT JOIN sums m ON m."walletId" = s."id" LEFT JOIN open o ON o."walletId" = s."id"
    WHERE s."balance" <> COALESCE(m."balance", 0) OR s."held" <> COALESCE(m."held", 0) OR s."held" <> COALESCE(o."held", 0)
      OR s."held" < 0 OR s."balance" < s."held"
    ORDER BY s."id"`;
  for (const w of wallets) {
    const at = { ...modeOf(w.mode), workspaceId: w.workspaceId, walletId: w.id, currency: w.currency };
    const [balance, held, entriesBalance, entriesHeld, openHolds] = [
      text(w.balance),
      text(w.held),
      text(w.entriesBalance),
      text(w.entriesHeld),
      text(w.openHolds),
    ];
    if (balance !== entriesBalance) {
      violations.push({
        rule: 'wallet_balance_equals_entries',
        message: `${w.mode} wallet ${w.id} (${w.currency}, workspace ${w.workspaceId}): balance ${balance} but its entries sum to ${entriesBalance}`,
        ...at,
        expected: entriesBalance,
        actual: balance,
      });
    }
    if (held !== entriesHeld) {
      violations.push({
        rule: 'wallet_held_equals_entries',
        message: `${w.mode} wallet ${w.id} (${w.currency}, workspace ${w.workspaceId}): held ${held} but its entries sum to ${entriesHeld}`,
        ...at,
        expected: entriesHeld,
        actual: held,
      });
    }
    if (held !== openHolds) {
      violations.push({
        rule: 'wallet_held_equals_open_holds',
        message: `${w.mode} wallet ${w.id} (${w.currency}, workspace ${w.workspaceId}): held ${held} but its processing payouts hold ${openHolds}`,
        ...at,
        expected: openHolds,
        actual: held,
      });
    }
    if (new Decimal(held).isNegative() || new Decimal(balance).lessThan(held)) {
      violations.push({
        rule: 'wallet_available_not_negative',
        message: `${w.mode} wallet ${w.id} (${w.currency}, workspace ${w.workspaceId}): balance ${balance}, held ${held}`,
        ...at,
        actual: held,
      });
    }
  }

  // Entries on another wallet than their transaction's, or moving the balances against their kind.
  const entries = await db.$queryRaw<
    Array<{
      entryId: string;
      transactionId: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      transactionWalletId: number;
      kind: string;
      balanceDelta: unknown;
      heldDelta: unknown;
      misshapen: boolean;
    }>
  >`
    SELECT e."id"::text AS "entryId", e."transactionId", t."reference", t."workspaceId", x."mode", e."walletId", t."walletId" AS "transactionWalletId",
      e."kind", e."balanceDelta", e."heldDelta",
      NOT COALESCE(
        (e."kind" = 'credit' AND e."balanceDelta" > 0 AND e."heldDelta" = 0) OR
        (e."kind" = 'hold' AND e."balanceDelta" = 0 AND e."heldDelta" > 0) OR
        (e."kind" = 'settle' AND e."balanceDelta" < 0 AND e."heldDelta" = e."balanceDelta") OR
        (e."kind" = 'release' AND e."balanceDelta" = 0 AND e."heldDelta" < 0), FALSE) AS "misshapen"
    FROM "LedgerEntry" e JOIN "LedgerTransaction" t ON t."id" = e."transactionId" LEFT JOIN "Workspace" x ON x."id" = t."workspaceId"
    WHERE ${scope('t."workspaceId"')} AND (e."walletId" <> t."walletId" OR NOT COALESCE(
        (e."kind" = 'credit' AND e."balanceDelta" > 0 AND e."heldDelta" = 0) OR
        (e."kind" = 'hold' AND e."balanceDelta" = 0 AND e."heldDelta" > 0) OR
        (e."kind" = 'settle' AND e."balanceDelta" < 0 AND e."heldDelta" = e."balanceDelta") OR
        (e."kind" = 'release' AND e."balanceDelta" = 0 AND e."heldDelta" < 0), FALSE))
    ORDER BY e."transactionId", e."id"`;
  const misplaced = new Set<string>();
  for (const e of entries) {
    const at = { ...modeOf(e.mode), workspaceId: e.workspaceId, transactionId: e.transactionId, reference: e.reference };
    if (e.walletId !== e.transactionWalletId && !misplaced.has(`${e.transactionId}:${e.walletId}`)) {
      misplaced.add(`${e.transactionId}:${e.walletId}`);
      violations.push({
        rule: 'entry_on_transaction_wallet',
        message: `transaction ${e.reference} (id ${e.transactionId}) of wallet ${e.transactionWalletId} has an entry on wallet ${e.walletId}`,
        ...at,
        walletId: e.walletId,
      });
    }
    if (e.misshapen) {
      violations.push({
        rule: 'entry_moves_as_its_kind',
        message: `entry ${e.entryId} of transaction ${e.reference} (id ${e.transactionId}) on wallet ${e.walletId} is a ${e.kind} moving the balance by ${text(e.balanceDelta)} and held by ${text(e.heldDelta)}`,
        ...at,
        walletId: e.walletId,
        entryId: e.entryId,
      });
    }
  }

  // Transactions whose wallet is missing, another workspace's or of another currency.
  const foreign = await db.$queryRaw<
    Array<{
      id: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      currency: string;
      walletWorkspaceId: number | null;
      walletMode: string | null;
      walletCurrency: string | null;
    }>
  >`
    SELECT t."id", t."reference", t."workspaceId", x."mode", t."walletId", t."currency",
      w."workspaceId" AS "walletWorkspaceId", wx."mode" AS "walletMode", w."currency" AS "walletCurrency"
    FROM "LedgerTransaction" t LEFT JOIN "Workspace" x ON x."id" = t."workspaceId"
      LEFT JOIN "Wallet" w ON w."id" = t."walletId" LEFT JOIN "Workspace" wx ON wx."id" = w."workspaceId"
    WHERE ${scope('t."workspaceId"')} AND (w."id" IS NULL OR w."workspaceId" <> t."workspaceId" OR w."currency" <> t."currency")
    ORDER BY t."id"`;
  for (const t of foreign) {
    const wallet =
      t.walletWorkspaceId === null
        ? `wallet ${t.walletId}, which does not exist`
        : `wallet ${t.walletId} of ${t.walletMode} workspace ${t.walletWorkspaceId} in ${t.walletCurrency}`;
    violations.push({
      rule: 'transaction_wallet_matches',
      message: `transaction ${t.reference} (id ${t.id}) of ${t.mode ?? 'missing'} workspace ${t.workspaceId} in ${t.currency} is on ${wallet}`,
      ...modeOf(t.mode),
      workspaceId: t.workspaceId,
      transactionId: t.id,
      reference: t.reference,
      walletId: t.walletId,
      currency: t.currency,
    });
  }

  // Per transaction, what its entries did, beside what its type and status say they must have done.
  const misshapen = await db.$queryRaw<
    Array<{
      id: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      type: string;
      status: string;
      amount: unknown;
      total: unknown;
      holds: number;
      held: unknown;
      settles: number;
      releases: number;
      credits: number;
      credited: unknown;
      entries: number;
      badHold: boolean;
      badResolution: boolean;
      badCredit: boolean;
    }>
  >`
    WITH s AS (
      SELECT t."id", t."reference", t."workspaceId", x."mode", t."walletId", t."type", t."status", t."amount", t."amount" + t."fees" AS "total",
        count(*) FILTER (WHERE e."kind" = 'hold')::int AS "holds", COALESCE(sum(e."heldDelta") FILTER (WHERE e."kind" = 'hold'), 0) AS "held",
        count(*) FILTER (WHERE e."kind" = 'settle')::int AS "settles", COALESCE(-sum(e."balanceDelta") FILTER (WHERE e."kind" = 'settle'), 0) AS "settled",
        count(*) FILTER (WHERE e."kind" = 'release')::int AS "releases", COALESCE(-sum(e."heldDelta") FILTER (WHERE e."kind" = 'release'), 0) AS "released",
        count(*) FILTER (WHERE e."kind" = 'credit')::int AS "credits", COALESCE(sum(e."balanceDelta") FILTER (WHERE e."kind" = 'credit'), 0) AS "credited",
        count(e."id")::int AS "entries"
      FROM "LedgerTransaction" t LEFT JOIN "Workspace" x ON x."id" = t."workspaceId" LEFT JOIN "LedgerEntry" e ON e."transactionId" = t."id"
      WHERE ${scope('t."workspaceId"')}
      GROUP BY t."id", x."mode"
    ), checked AS (
      SELECT s.*,
        s."type" = 'debit' AND NOT (s."holds" = 1 AND s."held" = s."total") AS "badHold",
        s."type" = 'debit' AND NOT (
          s."credits" = 0 AND s."entries" = s."holds" + s."settles" + s."releases" AND CASE s."status"
            WHEN 'processing' THEN s."settles" = 0 AND s."releases" = 0
            WHEN 'completed' THEN s."settles" = 1 AND s."releases" = 0 AND s."settled" = s."held"
            WHEN 'reversed' THEN s."settles" = 1 AND s."releases" = 0 AND s."settled" = s."held"
            WHEN 'failed' THEN s."releases" = 1 AND s."settles" = 0 AND s."released" = s."held"
            ELSE FALSE END
        ) AS "badResolution",
        s."type" <> 'debit' AND NOT (s."status" = 'completed' AND s."credits" = 1 AND s."entries" = 1 AND s."credited" = s."amount") AS "badCredit"
      FROM s
    )
    SELECT * FROM checked WHERE "badHold" OR "badResolution" OR "badCredit" ORDER BY "id"`;
  for (const t of misshapen) {
    const at = { ...modeOf(t.mode), workspaceId: t.workspaceId, transactionId: t.id, reference: t.reference, walletId: t.walletId };
    if (t.badHold) {
      violations.push({
        rule: 'payout_has_one_hold',
        message: `payout ${t.reference} (id ${t.id}) on wallet ${t.walletId}: ${t.holds} hold(s) of ${text(t.held)} for amount + fees ${text(t.total)}`,
        ...at,
        expected: text(t.total),
        actual: text(t.held),
      });
    }
    if (t.badResolution) {
      violations.push({
        rule: 'payout_resolution_matches_status',
        message: `payout ${t.reference} (id ${t.id}) on wallet ${t.walletId} is ${t.status} with ${t.settles} settle(s), ${t.releases} release(s), ${t.credits} credit(s) and ${t.entries} entries in all`,
        ...at,
      });
    }
    if (t.badCredit) {
      violations.push({
        rule: 'credit_has_one_entry',
        message: `credit ${t.reference} (id ${t.id}) on wallet ${t.walletId} is ${t.status} with ${t.credits} credit entr(ies) of ${text(t.credited)} for ${text(t.amount)} and ${t.entries} entries in all`,
        ...at,
        expected: text(t.amount),
        actual: text(t.credited),
      });
    }
  }

  // Inbound payments: `credited` exactly when they name their collection credit.
  const payments = await db.$queryRaw<
    Array<{
      id: number;
      workspaceId: number | null;
      mode: string | null;
      status: string;
      amount: unknown;
      currency: string;
      transactionId: number | null;
      reference: string | null;
      walletId: number | null;
    }>
  >`
    SELECT i."id", i."workspaceId", x."mode", i."status", i."amount", i."currency", i."ledgerTransactionId" AS "transactionId", t."reference", t."walletId"
    FROM "InboundPayment" i LEFT JOIN "Workspace" x ON x."id" = i."workspaceId" LEFT JOIN "LedgerTransaction" t ON t."id" = i."ledgerTransactionId"
    WHERE ${scope('i."workspaceId"')} AND (
      (i."status" = 'credited' AND (t."id" IS NULL OR t."type" <> 'credit' OR t."category" <> 'collection' OR t."workspaceId" IS DISTINCT FROM i."workspaceId"
        OR t."amount" <> i."amount" OR t."currency" <> i."currency"))
      OR (i."status" <> 'credited' AND i."ledgerTransactionId" IS NOT NULL))
    ORDER BY i."id"`;
  for (const p of payments) {
    const credit = p.transactionId === null ? 'no credit' : p.reference === null ? `transaction ${p.transactionId}, which does not exist` : `${p.reference}`;
    violations.push({
      rule: 'inbound_payment_has_credit',
      message: `inbound payment ${p.id} of ${text(p.amount)} ${p.currency} (workspace ${p.workspaceId ?? 'none'}) is ${p.status} and names ${credit}${
        p.status === 'credited' && p.reference !== null ? ', which is not a collection credit of its workspace, amount and currency' : ''
      }`,
      ...modeOf(p.mode),
      ...(p.workspaceId === null ? {} : { workspaceId: p.workspaceId }),
      inboundPaymentId: p.id,
      ...(p.transactionId === null ? {} : { transactionId: p.transactionId }),
      ...(p.reference === null ? {} : { reference: p.reference }),
      ...(p.walletId === null ? {} : { walletId: p.walletId }),
      currency: p.currency,
    });
  }

  // Credits without a source (reversals are checked against their payouts below).
  const sourceless = await db.$queryRaw<
    Array<{
      id: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      category: string;
      channel: string;
      provider: string;
      payments: number;
      matching: number;
    }>
  >`
    SELECT t."id", t."reference", t."workspaceId", x."mode", t."walletId", t."category", t."channel", t."provider",
      COALESCE(p."payments", 0) AS "payments", COALESCE(p."matching", 0) AS "matching"
    FROM "LedgerTransaction" t LEFT JOIN "Workspace" x ON x."id" = t."workspaceId"
    LEFT JOIN (
      SELECT i."ledgerTransactionId" AS "transactionId", count(*)::int AS "payments",
        (count(*) FILTER (WHERE i."status" = 'credited' AND i."workspaceId" = c."workspaceId" AND i."amount" = c."amount" AND i."currency" = c."currency"))::int AS "matching"
      FROM "InboundPayment" i JOIN "LedgerTransaction" c ON c."id" = i."ledgerTransactionId"
      GROUP BY i."ledgerTransactionId"
    ) p ON p."transactionId" = t."id"
    WHERE ${scope('t."workspaceId"')} AND t."type" = 'credit' AND t."category" <> 'reversal' AND NOT (
      (t."category" = 'collection' AND t."channel" IN ('collection_va', 'reserved_va') AND COALESCE(p."payments", 0) = 1 AND COALESCE(p."matching", 0) = 1)
      OR (t."category" = 'adjustment' AND t."channel" = 'adjustment' AND t."provider" = 'operator'))
    ORDER BY t."id"`;
  for (const t of sourceless) {
    const why =
      t.category === 'collection'
        ? `${t.payments} inbound payment(s) name it, ${t.matching} credited of its workspace, amount and currency (one of each expected, channel collection_va or reserved_va; it is ${t.channel})`
        : t.category === 'adjustment'
          ? `an adjustment on channel ${t.channel} by ${t.provider}, not an operator's (channel adjustment, provider operator)`
          : `category ${t.category} is no known source (collection, adjustment, reversal)`;
    violations.push({
      rule: 'credit_has_source',
      message: `credit ${t.reference} (id ${t.id}) on wallet ${t.walletId} has no source: ${why}`,
      ...modeOf(t.mode),
      workspaceId: t.workspaceId,
      transactionId: t.id,
      reference: t.reference,
      walletId: t.walletId,
    });
  }

  // Reversal credits against the payouts they name; audited with the credit's workspace and with the payout's.
  const reversals = await db.$queryRaw<
    Array<{
      id: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      currency: string;
      amount: unknown;
      idempotencyKey: string;
      channel: string;
      reversalOf: string | null;
      payoutId: number | null;
      payoutWorkspaceId: number | null;
      payoutWalletId: number | null;
      payoutCurrency: string | null;
      payoutStatus: string | null;
      payoutTotal: unknown;
    }>
  >`
    SELECT t."id", t."reference", t."workspaceId", x."mode", t."walletId", t."currency", t."amount", t."idempotencyKey", t."channel",
      t."metadata"->>'reversal_of' AS "reversalOf", o."id" AS "payoutId", o."workspaceId" AS "payoutWorkspaceId", o."walletId" AS "payoutWalletId",
      o."currency" AS "payoutCurrency", o."status" AS "payoutStatus", o."amount" + o."fees" AS "payoutTotal"
    FROM "LedgerTransaction" t LEFT JOIN "Workspace" x ON x."id" = t."workspaceId"
      LEFT JOIN "LedgerTransaction" o ON o."reference" = t."metadata"->>'reversal_of' AND o."type" = 'debit'
      LEFT JOIN "Workspace" ox ON ox."id" = o."workspaceId"
    WHERE (${scope('t."workspaceId"')} OR (o."id" IS NOT NULL AND ${scope('o."workspaceId"', 'ox')})) AND t."type" = 'credit' AND t."category" = 'reversal' AND (
      o."id" IS NULL OR o."workspaceId" <> t."workspaceId" OR o."walletId" <> t."walletId" OR o."currency" <> t."currency" OR o."status" <> 'reversed'
      OR o."amount" + o."fees" <> t."amount" OR t."idempotencyKey" IS DISTINCT FROM 'reversal:' || (t."metadata"->>'reversal_of') OR t."channel" <> 'payout')
    ORDER BY t."id"`;
  for (const r of reversals) {
    const problems: string[] = [];
    if (r.payoutId === null) {
      problems.push(r.reversalOf === null ? 'it names no payout (metadata.reversal_of)' : `no payout has the reference ${r.reversalOf}`);
    } else {
      if (r.payoutWorkspaceId !== r.workspaceId) problems.push(`the payout is in workspace ${r.payoutWorkspaceId}, not ${r.workspaceId}`);
      if (r.payoutWalletId !== r.walletId) problems.push(`the payout is on wallet ${r.payoutWalletId}, not ${r.walletId}`);
      if (r.payoutCurrency !== r.currency) problems.push(`the payout is in currency ${r.payoutCurrency}, not ${r.currency}`);
      if (r.payoutStatus !== 'reversed') problems.push(`the payout is ${r.payoutStatus}, not reversed`);
      if (text(r.payoutTotal) !== text(r.amount)) problems.push(`it credits ${text(r.amount)}, the payout's amount + fees are ${text(r.payoutTotal)}`);
    }
    if (r.reversalOf !== null && r.idempotencyKey !== `reversal:${r.reversalOf}`) problems.push(`its key is ${r.idempotencyKey}, not reversal:${r.reversalOf}`);
    if (r.channel !== 'payout') problems.push(`its channel is ${r.channel}, not payout`);
    violations.push({
      rule: 'reversal_matches_payout',
      message: `reversal credit ${r.reference} (id ${r.id}) on wallet ${r.walletId} of payout ${r.reversalOf ?? '(none)'}: ${problems.join('; ')}`,
      ...modeOf(r.mode),
      workspaceId: r.workspaceId,
      transactionId: r.id,
      reference: r.reference,
      walletId: r.walletId,
      ...(r.payoutTotal === null ? {} : { expected: text(r.payoutTotal), actual: text(r.amount) }),
    });
  }

  // Payouts reversed other than once.
  const reversedPayouts = await db.$queryRaw<
    Array<{
      id: number;
      reference: string;
      workspaceId: number;
      mode: string | null;
      walletId: number;
      status: string;
      reversals: number;
      credits: string | null;
    }>
  >`
    WITH r AS (
      SELECT "id", "reference", "metadata"->>'reversal_of' AS "of" FROM "LedgerTransaction" WHERE "type" = 'credit' AND "category" = 'reversal'
    )
    SELECT o."id", o."reference", o."workspaceId", x."mode", o."walletId", o."status", count(r."id")::int AS "reversals",
      string_agg(r."reference", ', ' ORDER BY r."id") AS "credits"
    FROM "LedgerTransaction" o LEFT JOIN "Workspace" x ON x."id" = o."workspaceId" LEFT JOIN r ON r."of" = o."reference"
    WHERE ${scope('o."workspaceId"')} AND o."type" = 'debit' AND (o."status" = 'reversed' OR o."reference" IN (SELECT "of" FROM r))
    GROUP BY o."id", x."mode"
    HAVING (o."status" = 'reversed' AND count(r."id") <> 1) OR count(r."id") > 1
    ORDER BY o."id"`;
  for (const o of reversedPayouts) {
    violations.push({
      rule: 'payout_reversed_once',
      message: `payout ${o.reference} (id ${o.id}) on wallet ${o.walletId} is ${o.status} with ${o.reversals} reversal credit(s)${o.credits ? ` (${o.credits})` : ''}`,
      ...modeOf(o.mode),
      workspaceId: o.workspaceId,
      transactionId: o.id,
      reference: o.reference,
      walletId: o.walletId,
    });
  }

  // Money in minus money out, per mode and currency, from the transactions alone, against the wallets they moved.
  const money = await db.$queryRaw<Array<{ mode: string; currency: string; balances: unknown; expected: unknown }>>`
    WITH wallets AS (
      SELECT w."id", w."currency", w."balance", x."mode" FROM "Wallet" w JOIN "Workspace" x ON x."id" = w."workspaceId" WHERE ${scope('w."workspaceId"')}
    ), b AS (
      SELECT "mode", "currency", sum("balance") AS "balances" FROM wallets GROUP BY "mode", "currency"
    ), m AS (
      SELECT w."mode", w."currency", sum(CASE
          WHEN t."type" = 'credit' AND t."status" = 'completed' THEN t."amount"
          WHEN t."type" = 'debit' AND t."status" IN ('completed', 'reversed') THEN -(t."amount" + t."fees")
          ELSE 0 END) AS "expected"
      FROM "LedgerTransaction" t JOIN wallets w ON w."id" = t."walletId"
      GROUP BY w."mode", w."currency"
    )
    SELECT b."mode", b."currency", b."balances", COALESCE(m."expected", 0) AS "expected"
    FROM b LEFT JOIN m ON m."mode" = b."mode" AND m."currency" = b."currency"
    WHERE b."balances" <> COALESCE(m."expected", 0)
    ORDER BY b."mode", b."currency"`;
  for (const c of money) {
    violations.push({
      rule: 'money_conserved',
      message: `${c.mode} ${c.currency}: wallets hold ${text(c.balances)} but completed credits minus completed and reversed payouts come to ${text(c.expected)}`,
      ...modeOf(c.mode),
      currency: c.currency,
      expected: text(c.expected),
      actual: text(c.balances),
    });
  }

  // What was read, per mode (the last read: same snapshot as every other).
  const counts = await db.$queryRaw<Array<{ mode: string | null; what: keyof LedgerAuditCounts; n: number }>>`
    SELECT x."mode", 'wallets' AS "what", count(*)::int AS "n"
    FROM "Wallet" w JOIN "Workspace" x ON x."id" = w."workspaceId" WHERE ${scope('w."workspaceId"')} GROUP BY x."mode"
    UNION ALL
    SELECT x."mode", 'transactions', count(*)::int
    FROM "LedgerTransaction" t LEFT JOIN "Workspace" x ON x."id" = t."workspaceId" WHERE ${scope('t."workspaceId"')} GROUP BY x."mode"
    UNION ALL
    SELECT x."mode", 'entries', count(*)::int
    FROM "LedgerEntry" e JOIN "LedgerTransaction" t ON t."id" = e."transactionId" LEFT JOIN "Workspace" x ON x."id" = t."workspaceId"
    WHERE ${scope('t."workspaceId"')} GROUP BY x."mode"`;
  const zero = (): LedgerAuditCounts => ({ wallets: 0, transactions: 0, entries: 0 });
  const checked = zero();
  const modes = Object.fromEntries(MODES.map((m) => [m, { ok: true, checked: zero(), violations: 0 }])) as Record<Mode, LedgerModeAudit>;
  for (const c of counts) {
    checked[c.what] += c.n;
    const side = modeOf(c.mode).mode;
    if (side) modes[side].checked[c.what] += c.n;
  }
  for (const v of violations) {
    if (!v.mode) continue;
    modes[v.mode].violations += 1;
    modes[v.mode].ok = false;
  }

  return { ok: violations.length === 0, workspaceId, mode, checked, modes, violations };
}
