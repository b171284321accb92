import { AppError, Decimal, formatAmount, type TFeeRule } from '@cowrie/core';
import { Prisma, type LedgerTransaction, type PrismaClient } from '@cowrie/db';
import { findWallet, newReference, placeHold, walletBalances } from '@cowrie/ledger';
import { isRailError, type Rails } from '@cowrie/rails';
import { checkPayoutCurrency } from './currency';
import { payoutFee } from './fees';
import { findActiveBeneficiary } from './beneficiaries';

/** Narration of a transfer sent without one (interface: POST /v1/transfers). */
export const DEFAULT_TRANSFER_NARRATION = 'Cowrie transfer';

export interface PayoutDeps {
  db: PrismaClient;
  rails: Rails;
  /** PAYOUT_FEE_SCHEDULE */
  feeSchedule: Record<string, TFeeRule>;
}

export interface CreatedPayout {
  transaction: LedgerTransaction;
  /** False when `idempotency_key` matched an existing transaction, which is returned instead. */
  created: boolean;
}

// Many payouts may wait for one wallet's row lock; give them room before Prisma gives up.
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 };

const exceedsBalance = (available: Decimal, currency: string) =>
  new AppError('invalid_request', `Exceeds balance: ${formatAmount(available)} ${currency}`, { details: { field: 'amount', available: formatAmount(available), currency } });

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

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
 * Pre-flight checks 2 to 4 and the `processing` row with its hold, in one
 * database transaction (interface: POST /v1/transfers). The hold's
 * conditional update is the overdraft guard under concurrency; the unique
 * (workspace, idempotency key) index makes a racing duplicate find the first.
 */
async function openPayout(db: PrismaClient, draft: PayoutDraft): Promise<CreatedPayout> {
  const reference = newReference('snd');
  const idempotencyKey = draft.idempotencyKey ?? reference;
  const total = draft.amount.plus(draft.fees);
  try {
    return await db.$transaction(async (tx) => {
      const wallet = await findWallet(tx, draft.workspaceId, draft.currency);
      if (!wallet) throw new AppError('not_found', `This workspace has no ${draft.currency} wallet`, { details: { currency: draft.currency } });
      const { available } = walletBalances(wallet);
      if (available.lessThan(total)) throw exceedsBalance(available, draft.currency);
      // Without a client key the key is a fresh reference, which nothing can match.
      if (draft.idempotencyKey !== undefined) {
        const existing = await tx.ledgerTransaction.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId: draft.workspaceId, idempotencyKey } } });
        if (existing) return { transaction: existing, created: false };
      }
      const transaction = await tx.ledgerTransaction.create({
        data: {
          workspaceId: draft.workspaceId,
          walletId: wallet.id,
          type: 'debit',
          direction: 'out',
          category: draft.kind === 'transfer' ? 'send' : 'payout',
          channel: draft.kind === 'transfer' ? 'transfer' : 'payout',
          status: 'processing',
          reference,
          idempotencyKey,
          currency: draft.currency,
          amount: draft.amount.toFixed(6),
          fees: draft.fees.toFixed(6),
          title: draft.title,
          description: draft.description,
          provider: draft.provider,
          counterpartyName: draft.counterpartyName,
          counterpartyAccount: draft.counterpartyAccount,
          counterpartyBank: draft.counterpartyBank,
          counterpartyEmail: null,
          bankCode: draft.bankCode,
          beneficiaryId: draft.beneficiaryId,
          metadata: { provider: draft.provider, raw: {}, ...draft.metadata },
        },
      });
      if (!(await placeHold(tx, { walletId: wallet.id, transactionId: transaction.id, amount: total }))) {
        const now = await tx.wallet.findUniqueOrThrow({ where: { id: wallet.id } });
        throw exceedsBalance(walletBalances(now).available, draft.currency);
      }
      return { transaction, created: true };
    }, TX_OPTIONS);
  } catch (err) {
    if (draft.idempotencyKey !== undefined && isUniqueViolation(err)) {
      const existing = await db.ledgerTransaction.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId: draft.workspaceId, idempotencyKey } } });
      if (existing) return { transaction: existing, created: false };
    }
    throw err;
  }
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
  const rail = deps.rails.forCurrency(currency);
  const counterpartyBank = await counterpartyBankName(deps.rails, currency, input.bankName, input.bankCode);
  const counterpartyName = input.accountName ?? null;
  return openPayout(deps.db, {
    workspaceId: input.workspaceId,
    currency,
    provider: rail.id,
    amount: input.amount,
    fees: payoutFee(deps.feeSchedule, currency, input.amount),
    idempotencyKey: input.idempotencyKey,
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
  const rail = deps.rails.forCurrency(currency);
  const narration = `Withdrawal to ${beneficiary.name}`;
  return openPayout(deps.db, {
    workspaceId: input.workspaceId,
    currency,
    provider: rail.id,
    amount: input.amount,
    fees: payoutFee(deps.feeSchedule, currency, input.amount),
    idempotencyKey: input.idempotencyKey,
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
