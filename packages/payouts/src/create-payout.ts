import { AppError, Decimal, formatAmount, type TFeeRule } from '@cowrie/core';
import { isSqlUniqueViolation, utcTimestamp, type LedgerTransaction, type Prisma, type PrismaClient, type SqlPool, type SqlQueryable } from '@cowrie/db';
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
}

/**
 * The whole open as one statement, so it commits on its own (autocommit) the
 * instant the hold is placed: the wallet's row lock, which every payout of the
 * workspace waits for, is never held across a round trip to this process.
 * The pre-flight reads ($1 workspace, $2 currency, $3 idempotency key) gate
 * the hold; the hold gates the insert of the row, which the hold's entry
 * names. A racing duplicate key fails the insert (23505), undoing the hold.
 */
const OPEN_PAYOUT = `
  WITH wallet AS (
    SELECT "id", "balance" - "held" AS "available" FROM "Wallet" WHERE "workspaceId" = $1 AND "currency" = $2
  ), duplicate AS (
    SELECT "id" FROM "LedgerTransaction" WHERE "workspaceId" = $1 AND "idempotencyKey" = $3
  ), held AS (
    UPDATE "Wallet" w SET "held" = w."held" + $4::numeric, "updatedAt" = $5
    FROM wallet
    WHERE w."id" = wallet."id" AND wallet."available" >= $4::numeric AND NOT EXISTS (SELECT 1 FROM duplicate)
      AND w."balance" - w."held" >= $4::numeric
    RETURNING w."id"
  ), created AS (
    INSERT INTO "LedgerTransaction" ("workspaceId", "walletId", "type", "direction", "category", "channel", "status", "reference",
      "idempotencyKey", "currency", "amount", "fees", "title", "description", "provider", "counterpartyName", "counterpartyAccount",
      "counterpartyBank", "counterpartyEmail", "bankCode", "beneficiaryId", "metadata", "createdAt", "updatedAt")
    SELECT $1, held."id", 'debit', 'out', $6, $7, 'processing', $8, $3, $2, $9, $10, $11, $12, $13, $14, $15, $16, NULL, $17, $18, $19, $5, $5
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

async function findByIdempotencyKey(sql: SqlQueryable, workspaceId: number, idempotencyKey: string) {
  const { rows } = await sql.query<Record<string, unknown>>({
    name: 'cowrie-payout-by-key',
    text: 'SELECT * FROM "LedgerTransaction" WHERE "workspaceId" = $1 AND "idempotencyKey" = $2',
    values: [workspaceId, idempotencyKey],
  });
  return rows[0] ? ledgerTransactionFromSql(rows[0]) : null;
}

/**
 * Pre-flight checks 2 to 4 and the `processing` row with its hold, in one
 * statement (interface: POST /v1/transfers; see OPEN_PAYOUT). The hold's
 * conditional update is the overdraft guard under concurrency; the unique
 * (workspace, idempotency key) index makes a racing duplicate find the first.
 */
async function openPayout(sql: SqlPool, draft: PayoutDraft): Promise<CreatedPayout> {
  const reference = newReference('snd');
  const idempotencyKey = draft.idempotencyKey ?? reference;
  const total = draft.amount.plus(draft.fees);
  const values = [
    draft.workspaceId, draft.currency, idempotencyKey, total.toFixed(6), utcTimestamp(new Date()),
    draft.kind === 'transfer' ? 'send' : 'payout', draft.kind === 'transfer' ? 'transfer' : 'payout',
    reference, draft.amount.toFixed(6), draft.fees.toFixed(6), draft.title, draft.description, draft.provider,
    draft.counterpartyName, draft.counterpartyAccount, draft.counterpartyBank, draft.bankCode, draft.beneficiaryId,
    JSON.stringify({ provider: draft.provider, raw: {}, ...draft.metadata }),
  ];
  for (let attempt = 1; ; attempt++) {
    let opened: TOpenPayoutRow;
    try {
      opened = (await sql.query<TOpenPayoutRow>({ name: 'cowrie-open-payout', text: OPEN_PAYOUT, values })).rows[0]!;
    } catch (err) {
      if (isSqlUniqueViolation(err)) {
        const existing = await findByIdempotencyKey(sql, draft.workspaceId, idempotencyKey);
        if (existing) return { transaction: existing, created: false };
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
    const available = new Decimal(opened.preflightAvailable!);
    if (available.lessThan(total)) throw exceedsBalance(available, draft.currency);
    if (opened.duplicateId !== null) {
      const existing = await findByIdempotencyKey(sql, draft.workspaceId, idempotencyKey);
      if (existing) return { transaction: existing, created: false };
    }
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

/** What every payout's draft takes from its request: the rail of the currency and the fee schedule's fee. */
function payoutBasics(deps: PayoutDeps, currency: string, input: { workspaceId: number; amount: Decimal; idempotencyKey?: string }) {
  return {
    workspaceId: input.workspaceId,
    currency,
    provider: deps.rails.forCurrency(currency).id,
    amount: input.amount,
    fees: payoutFee(deps.feeSchedule, currency, input.amount),
    idempotencyKey: input.idempotencyKey,
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
