import { AppError, Decimal, formatAmount, type TFeeRule } from '@cowrie/core';
import { batchPerTurnFor, isSqlStatementRefused, isSqlUniqueViolation, utcTimestamp, type LedgerTransaction, type Prisma, type PrismaClient, type SqlPool, type SqlQueryable } from '@cowrie/db';
import { ledgerTransactionFromSql, newReference } from '@cowrie/ledger';
import { isRailError, type Rails } from '@cowrie/rails';
import { checkPayoutCurrency } from './currency';
import { payoutFee } from './fees';
import { findActiveBeneficiary } from './beneficiaries';

/** Narration of a transfer sent without one (interface: POST /v1/transfers). */
export const DEFAULT_TRANSFER_NARRATION = 'Cowrie transfer';

export interface PayoutDeps {
  db: PrismaClient;
  /** Plain pg on the same database: the payout's row and hold (see openPayout). */
  sql: SqlPool;
  rails: Rails;
  /** PAYOUT_FEE_SCHEDULE */
  feeSchedule: Record<string, TFeeRule>;
}

export interface CreatedPayout {
  transaction: LedgerTransaction;
  /** False when `idempotency_key` matched an existing transaction, which is returned instead. */
  created: boolean;
}

const exceedsBalance = (available: Decimal, currency: string) =>
  new AppError('invalid_request', `Exceeds balance: ${formatAmount(available)} ${currency}`, { details: { field: 'amount', available: formatAmount(available), currency } });

interface PayoutDraft {
  workspaceId: number;
  currency: string;
  provider: string;
  amount: Decimal;
  fees: Decimal;
  idempotencyKey?: string;
  kind: 'transfer' | 'withdrawal';
  title: string;
  description: string;
  counterpartyName: string | null;
  counterpartyAccount: string;
  counterpartyBank: string | null;
  bankCode: string | null;
  beneficiaryId: number | null;
  metadata: Record<string, Prisma.InputJsonValue>;
  /** The request's Idempotency-Key and request hash, recorded on the row (unique per workspace). */
  request?: TPayoutRequestKey;
}

/**
 * The `Idempotency-Key` header a payout was asked for with, and the hash of
 * that request. The row keeps both under a unique index, so whatever happens
 * to the idempotency layer's own record, one key never opens two payouts: a
 * retry with the same request finds the first, and one with another body is a
 * conflict.
 */
export interface TPayoutRequestKey {
  key: string;
  requestHash: string;
}

const requestKeyConflict = () =>
  new AppError('idempotency_conflict', 'This Idempotency-Key was reused with a different request body (or method or path)');

/**
 * The whole open as one statement, so it commits on its own (autocommit) the
 * instant the hold is placed: the wallet's row lock, which every payout of the
 * workspace waits for, is never held across a round trip to this process.
 * The pre-flight reads ($1 workspace, $2 currency, $3 idempotency key) gate
 * the hold; the hold gates the insert of the row, which the hold's entry
 * names. A racing duplicate key fails the insert (23505), undoing the hold.
 */
/** The columns a payout's `processing` row is inserted with, by OPEN_PAYOUT and OPEN_PAYOUTS alike. */
const PAYOUT_ROW_COLUMNS = `"workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference",
  "idempotencyKey", "currency", "amount", "fees", "title", "description", "provider", "counterpartyName", "counterpartyAccount",
  "counterpartyBank", "counterpartyEmail", "bankCode", "beneficiaryId", "metadata", "requestKey", "requestHash", "createdAt", "updatedAt"`;

/**
 * The id of an earlier payout of the workspace that this one repeats: the same
 * ledger key (debits only: credits' keys are the system's, apart from the
 * clients'), or the same Idempotency-Key header. Takes the SQL of the three values.
 */
const earlierPayoutId = (workspaceId: string, ledgerKey: string, headerKey: string) => `
  SELECT "id" FROM "LedgerTransaction"
  WHERE "workspaceId" = ${workspaceId} AND (("type" = 'debit' AND "idempotencyKey" = ${ledgerKey}) OR ("requestKey" IS NOT NULL AND "requestKey" = ${headerKey}))
  ORDER BY "id" LIMIT 1`;

const OPEN_PAYOUT = `
  WITH wallet AS (
    SELECT "id", "balance" - "held" AS "available" FROM "Wallet" WHERE "workspaceId" = $1 AND "currency" = $2
  ), duplicate AS (${earlierPayoutId('$1', '$3', '$20')}
  ), held AS (
    UPDATE "Wallet" w SET "held" = w."held" + $4::numeric, "updatedAt" = $5
    FROM wallet
    WHERE w."id" = wallet."id" AND wallet."available" >= $4::numeric AND NOT EXISTS (SELECT 1 FROM duplicate)
      AND w."balance" - w."held" >= $4::numeric
    RETURNING w."id"
  ), created AS (
    INSERT INTO "LedgerTransaction" (${PAYOUT_ROW_COLUMNS})
    SELECT $1, held."id", 'debit', 'out', $6, $7, 'processing', $8, $3, $2, $9, $10, $11, $12, $13, $14, $15, $16, NULL, $17, $18, $19, $20, $21, $5, $5
    FROM held
    RETURNING *
  ), entry AS (
    INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta", "createdAt")
    SELECT "walletId", "id", 'hold', 0, $4::numeric, $5 FROM created
  )
  SELECT (SELECT "id" FROM wallet) AS "preflightWalletId", (SELECT "available" FROM wallet) AS "preflightAvailable",
    (SELECT "id" FROM duplicate) AS "duplicateId", created.*
  FROM (SELECT 1) AS one LEFT JOIN created ON true`;

type TOpenPayoutRow = Record<string, unknown> & { preflightWalletId: number | null; preflightAvailable: string | null; duplicateId: number | null; id: number | null };

/**
 * The earlier payout a repeated request is answered with (EARLIER_PAYOUT), or
 * null. The same header key with another request's hash is a conflict.
 */
async function findEarlierPayout(sql: SqlQueryable, request: OpenRequest): Promise<CreatedPayout | null> {
  const { draft } = request;
  const { rows } = await sql.query<Record<string, unknown>>({
    name: 'cowrie-earlier-payout',
    text: `SELECT * FROM "LedgerTransaction" WHERE "id" = (${earlierPayoutId('$1', '$2', '$3')})`,
    values: [draft.workspaceId, request.idempotencyKey, draft.request?.key ?? null],
  });
  if (!rows[0]) return null;
  const transaction = ledgerTransactionFromSql(rows[0]);
  if (draft.request && transaction.requestKey === draft.request.key && transaction.requestHash !== draft.request.requestHash) throw requestKeyConflict();
  return { transaction, created: false };
}

/** The columns of a payout's row and the values of OPEN_PAYOUT, in its parameter order. */
function openValues(draft: PayoutDraft, reference: string, idempotencyKey: string, total: Decimal, now: Date) {
  return [
    draft.workspaceId, draft.currency, idempotencyKey, total.toFixed(6), utcTimestamp(now),
    draft.kind === 'transfer' ? 'send' : 'payout', draft.kind === 'transfer' ? 'transfer' : 'payout',
    reference, draft.amount.toFixed(6), draft.fees.toFixed(6), draft.title, draft.description, draft.provider,
    draft.counterpartyName, draft.counterpartyAccount, draft.counterpartyBank, draft.bankCode, draft.beneficiaryId,
    JSON.stringify({ provider: draft.provider, raw: {}, ...draft.metadata }),
    draft.request?.key ?? null, draft.request?.requestHash ?? null,
  ] as const;
}

/**
 * Pre-flight checks 2 to 4 and the `processing` row with its hold, for one
 * payout in one statement (interface: POST /v1/transfers; see OPEN_PAYOUT).
 * The hold's conditional update is the overdraft guard under concurrency; the
 * unique (workspace, type, idempotency key) and (workspace, request key)
 * indexes make a racing duplicate find the first. Every answer the interface
 * names (404 wallet, `Exceeds balance`, the first row of a repeated key) comes
 * from here. A repeated Idempotency-Key header is answered with its payout
 * before the balance is looked at: the request was done, not asked again.
 */
async function openOnePayout(sql: SqlPool, request: OpenRequest): Promise<CreatedPayout> {
  const { draft, reference, idempotencyKey, total } = request;
  const values = openValues(draft, reference, idempotencyKey, total, new Date());
  for (let attempt = 1; ; attempt++) {
    let opened: TOpenPayoutRow;
    try {
      opened = (await sql.query<TOpenPayoutRow>({ name: 'cowrie-open-payout', text: OPEN_PAYOUT, values: [...values] })).rows[0]!;
    } catch (err) {
      if (isSqlUniqueViolation(err)) {
        const earlier = await findEarlierPayout(sql, request);
        if (earlier) return earlier;
      }
      throw err;
    }
    if (opened.preflightWalletId === null) {
      throw new AppError('not_found', `This workspace has no ${draft.currency} wallet`, { details: { currency: draft.currency } });
    }
    if (opened.id !== null) {
      const { preflightWalletId: _w, preflightAvailable: _a, duplicateId: _d, ...row } = opened;
      return { transaction: ledgerTransactionFromSql(row), created: true };
    }
    const earlier = opened.duplicateId === null ? null : await findEarlierPayout(sql, request);
    if (earlier && draft.request && earlier.transaction.requestKey === draft.request.key) return earlier;
    const available = new Decimal(opened.preflightAvailable!);
    if (available.lessThan(total)) throw exceedsBalance(available, draft.currency);
    if (earlier) return earlier;
    // Concurrent holds took the money while this statement waited for the
    // wallet's lock. Answer with what is left, or try again if some came back.
    const { rows } = await sql.query<{ available: string }>({
      name: 'cowrie-wallet-available',
      text: 'SELECT "balance" - "held" AS "available" FROM "Wallet" WHERE "id" = $1',
      values: [opened.preflightWalletId],
    });
    const now = new Decimal(rows[0]!.available);
    if (now.lessThan(total) || attempt === 3) throw exceedsBalance(Decimal.min(now, available), draft.currency);
  }
}

/**
 * The plain case of many payouts opened at once, as one statement: every
 * wallet the batch draws on is locked first, in id order, and read as it is
 * under the lock; per wallet, the payouts (in the order they came) whose
 * running total still fits what is available are held together, one update of
 * the wallet, one `processing` row and `hold` entry each. A payout whose key
 * is already taken, whose wallet is missing, or that does not fit is left out
 * (no row): openPayout sends it down the one-payout path, which gives the
 * interface's answer for it. A duplicate key racing in from elsewhere fails
 * the whole statement (23505), and then every payout of the batch takes that
 * path too, as it does on any other error. The rule of the one-payout path holds: never more held than the
 * balance, checked again by the update's guard under the lock.
 */
const OPEN_PAYOUTS = `
  WITH input AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::numeric[],
      $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::int[], $18::jsonb[], $20::text[], $21::text[]) WITH ORDINALITY
      AS i("workspaceId", "currency", "idempotencyKey", "total", "category", "channel", "reference", "amount", "fees",
        "title", "description", "provider", "counterpartyName", "counterpartyAccount", "counterpartyBank", "bankCode", "beneficiaryId", "metadata",
        "requestKey", "requestHash", "position")
  ), locked AS MATERIALIZED (
    SELECT w."id", w."workspaceId", w."currency", w."balance" - w."held" AS "available" FROM "Wallet" w
    WHERE (w."workspaceId", w."currency") IN (SELECT "workspaceId", "currency" FROM input)
    ORDER BY w."id" FOR UPDATE
  ), eligible AS (
    SELECT i.*, l."id" AS "walletId", l."available", sum(i."total") OVER (PARTITION BY l."id" ORDER BY i."position") AS "runningTotal"
    FROM input i JOIN locked l ON l."workspaceId" = i."workspaceId" AND l."currency" = i."currency"
    WHERE NOT EXISTS (
      SELECT 1 FROM "LedgerTransaction" t WHERE t."workspaceId" = i."workspaceId"
        AND ((t."type" = 'debit' AND t."idempotencyKey" = i."idempotencyKey") OR (i."requestKey" IS NOT NULL AND t."requestKey" = i."requestKey"))
    )
  ), accepted AS MATERIALIZED (
    SELECT * FROM eligible WHERE "runningTotal" <= "available"
  ), held AS (
    UPDATE "Wallet" w SET "held" = w."held" + a."total", "updatedAt" = $19
    FROM (SELECT "walletId", sum("total") AS "total" FROM accepted GROUP BY "walletId") a
    WHERE w."id" = a."walletId" AND w."balance" - w."held" >= a."total"
    RETURNING w."id"
  ), created AS (
    INSERT INTO "LedgerTransaction" (${PAYOUT_ROW_COLUMNS})
    SELECT a."workspaceId", a."walletId", 'debit', 'out', a."category", a."channel", 'processing', a."reference", a."idempotencyKey", a."currency",
      a."amount", a."fees", a."title", a."description", a."provider", a."counterpartyName", a."counterpartyAccount", a."counterpartyBank", NULL,
      a."bankCode", a."beneficiaryId", a."metadata", a."requestKey", a."requestHash", $19, $19
    FROM accepted a JOIN held h ON h."id" = a."walletId"
    ORDER BY a."position"
    RETURNING *
  ), entry AS (
    INSERT INTO "LedgerEntry" ("walletId", "transactionId", "kind", "balanceDelta", "heldDelta", "createdAt")
    SELECT "walletId", "id", 'hold', 0, "amount" + "fees", $19 FROM created
  )
  SELECT * FROM created`;

interface OpenRequest {
  draft: PayoutDraft;
  reference: string;
  idempotencyKey: string;
  total: Decimal;
}

/** OPEN_PAYOUTS for one batch: the created row of each payout it opened, null for the ones it left out. */
async function openBatch(sql: SqlQueryable, requests: readonly OpenRequest[]): Promise<Array<CreatedPayout | null>> {
  // A key (ledger or header) at most once per statement (the index would
  // refuse the second): the later ones take the one-payout path and find the first.
  const keys = new Set<string>();
  const batch = requests.filter((r) => {
    const ledgerKey = `${r.draft.workspaceId}:ledger:${r.idempotencyKey}`;
    const headerKey = r.draft.request ? `${r.draft.workspaceId}:header:${r.draft.request.key}` : null;
    if (keys.has(ledgerKey) || (headerKey && keys.has(headerKey))) return false;
    keys.add(ledgerKey);
    if (headerKey) keys.add(headerKey);
    return true;
  });
  const now = new Date();
  const columns = batch.map((r) => openValues(r.draft, r.reference, r.idempotencyKey, r.total, now));
  const column = (i: number) => columns.map((c) => c[i]);
  let rows: Array<Record<string, unknown>>;
  try {
    ({ rows } = await sql.query<Record<string, unknown>>({
      name: 'cowrie-open-payouts',
      text: OPEN_PAYOUTS,
      values: [column(0), column(1), column(2), column(3), column(5), column(6), column(7), column(8), column(9), column(10),
        column(11), column(12), column(13), column(14), column(15), column(16), column(17), column(18), utcTimestamp(now), column(19), column(20)],
    }));
  } catch (err) {
    // Refused (a racing duplicate key, 23505, or a value one payout brought):
    // nothing was written, so each takes the one-payout path and a fault stays
    // its own. A lost connection is not retried: the batch may have committed.
    if (!isSqlStatementRefused(err)) throw err;
    return requests.map(() => null);
  }
  const created = new Map(rows.map((row) => [row.reference as string, ledgerTransactionFromSql(row)]));
  return requests.map((r) => {
    const transaction = created.get(r.reference);
    return transaction ? { transaction, created: true } : null;
  });
}

// One batcher per pool, one batch at a time: the opens of a burst share the
// wallet's row lock and its commit instead of queueing for them one by one.
const openBatcher = batchPerTurnFor(openBatch, { oneAtATime: true });

/**
 * Pre-flight checks 2 to 4 and the `processing` row with its hold: batched
 * with the other opens of this process (OPEN_PAYOUTS), and through the
 * one-payout path for whatever the batch left out.
 */
async function openPayout(sql: SqlPool, draft: PayoutDraft): Promise<CreatedPayout> {
  const reference = newReference('snd');
  const request = { draft, reference, idempotencyKey: draft.idempotencyKey ?? reference, total: draft.amount.plus(draft.fees) };
  return (await openBatcher(sql).load(request)) ?? openOnePayout(sql, request);
}

/** What every payout's draft takes from its request: the rail of the currency and the fee schedule's fee. */
function payoutBasics(deps: PayoutDeps, currency: string, input: { workspaceId: number; amount: Decimal; idempotencyKey?: string; request?: TPayoutRequestKey }) {
  return {
    workspaceId: input.workspaceId,
    currency,
    provider: deps.rails.forCurrency(currency).id,
    amount: input.amount,
    fees: payoutFee(deps.feeSchedule, currency, input.amount),
    idempotencyKey: input.idempotencyKey,
    request: input.request,
  };
}

/** The bank's name for `counterpartyBank`: as given, else from the rail's bank list, else the code. */
async function counterpartyBankName(rails: Rails, currency: string, bankName: string | undefined, bankCode: string | undefined): Promise<string | null> {
  if (bankName) return bankName;
  if (!bankCode) return null;
  try {
    const banks = await rails.banks(rails.forCurrency(currency));
    return banks.find((b) => b.bankCode === bankCode)?.bankName ?? bankCode;
  } catch (err) {
    // The bank list is a nicety here; an unavailable rail is reported when the payout is sent.
    if (isRailError(err)) return bankCode;
    throw err;
  }
}

export interface TransferInput {
  workspaceId: number;
  currency: string;
  amount: Decimal;
  accountNumber: string;
  bankCode?: string;
  accountName?: string;
  bankName?: string;
  narration?: string;
  idempotencyKey?: string;
  /** The request's Idempotency-Key header, when it had one. */
  request?: TPayoutRequestKey;
}

/** POST /v1/transfers: the checks in the interface's order, then a `processing` row and its hold. */
export async function createTransfer(deps: PayoutDeps, input: TransferInput): Promise<CreatedPayout> {
  const currency = checkPayoutCurrency(input.currency);
  const counterpartyBank = await counterpartyBankName(deps.rails, currency, input.bankName, input.bankCode);
  const counterpartyName = input.accountName ?? null;
  return openPayout(deps.sql, {
    ...payoutBasics(deps, currency, input),
    kind: 'transfer',
    title: `Transfer to ${counterpartyName ?? input.accountNumber}`,
    description: input.narration ?? DEFAULT_TRANSFER_NARRATION,
    counterpartyName,
    counterpartyAccount: input.accountNumber,
    counterpartyBank,
    bankCode: input.bankCode ?? null,
    beneficiaryId: null,
    metadata: input.bankName ? { bank_name: input.bankName } : {},
  });
}

export interface WithdrawalInput {
  workspaceId: number;
  currency: string;
  amount: Decimal;
  beneficiaryId: number;
  narration?: string;
  idempotencyKey?: string;
  /** The request's Idempotency-Key header, when it had one. */
  request?: TPayoutRequestKey;
}

/**
 * POST /v1/withdrawals: the transfer's ledger path to a saved beneficiary,
 * recorded with category and channel `payout`.
 */
export async function createWithdrawal(deps: PayoutDeps, input: WithdrawalInput): Promise<CreatedPayout> {
  const currency = checkPayoutCurrency(input.currency);
  const beneficiary = await findActiveBeneficiary(deps.db, input.workspaceId, input.beneficiaryId);
  if (!beneficiary) throw new AppError('not_found', 'Beneficiary not found', { details: { field: 'beneficiary_id' } });
  if (beneficiary.currency !== currency) {
    throw new AppError('invalid_request', `currency ${currency} does not match the beneficiary's currency ${beneficiary.currency}`, { details: { field: 'currency' } });
  }
  const narration = `Withdrawal to ${beneficiary.name}`;
  return openPayout(deps.sql, {
    ...payoutBasics(deps, currency, input),
    kind: 'withdrawal',
    title: narration,
    description: input.narration ?? narration,
    counterpartyName: beneficiary.name,
    counterpartyAccount: beneficiary.accountNumber,
    counterpartyBank: beneficiary.bankName,
    bankCode: beneficiary.bankCode,
    beneficiaryId: beneficiary.id,
    metadata: { beneficiary_id: beneficiary.id },
  });
}
