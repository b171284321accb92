import { AppError, type Decimal, type FeeRule } from '@cowrie/core';
import type { PrismaClient, SqlPool } from '@cowrie/db';
import { openHeldDebit, type OpenedDebit, type RequestKey } from '@cowrie/ledger';
import { isRailError, type Rails } from '@cowrie/rails';
import { checkPayoutCurrency } from './currency';
import { payoutFee } from './fees';
import { findActiveBeneficiary } from './beneficiaries';
import { routeMetadata } from './rail-route';

/** Narration of a transfer sent without one. */
export const DEFAULT_TRANSFER_NARRATION = 'Cowrie transfer';

export interface PayoutDeps {
  db: PrismaClient;
  /** Plain pg on the same database: the payout's row and hold (openHeldDebit, @cowrie/ledger). */
  sql: SqlPool;
  rails: Rails;
  /** PAYOUT_FEE_SCHEDULE */
  feeSchedule: Record<string, FeeRule>;
}

/** A payout as opened: its row, and false in `created` when a key matched an existing payout, which is returned instead. */
export type CreatedPayout = OpenedDebit;

/** The `Idempotency-Key` header a payout was asked for with, and the hash of that request (see RequestKey). */
export type PayoutRequestKey = RequestKey;

/**
 * What every payout's draft takes from its request: its route (the rails it
 * may go through, first one first, and the rule that chose them: recorded in
 * its metadata when there is a choice) and the fee schedule's fee.
 */
async function payoutBasics(
  deps: PayoutDeps,
  currency: string,
  bankCode: string | null,
  input: { workspaceId: number; amount: Decimal; idempotencyKey?: string; request?: PayoutRequestKey },
) {
  const route = await deps.rails.route({ currency, bankCode, amount: input.amount, workspaceId: input.workspaceId });
  return {
    routeMetadata: routeMetadata(route),
    workspaceId: input.workspaceId,
    currency,
    provider: route.rails[0]!,
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
  request?: PayoutRequestKey;
}

/** POST /v1/transfers: the checks in the documented order, then a `processing` row and its hold. */
export async function createTransfer(deps: PayoutDeps, input: TransferInput): Promise<CreatedPayout> {
  const currency = checkPayoutCurrency(input.currency);
  const counterpartyBank = await counterpartyBankName(deps.rails, currency, input.bankName, input.bankCode);
  const counterpartyName = input.accountName ?? null;
  const { routeMetadata: route, ...basics } = await payoutBasics(deps, currency, input.bankCode ?? null, input);
  return openHeldDebit(deps.sql, {
    ...basics,
    category: 'send',
    channel: 'transfer',
    title: `Transfer to ${counterpartyName ?? input.accountNumber}`,
    description: input.narration ?? DEFAULT_TRANSFER_NARRATION,
    counterpartyName,
    counterpartyAccount: input.accountNumber,
    counterpartyBank,
    bankCode: input.bankCode ?? null,
    beneficiaryId: null,
    metadata: { ...(input.bankName ? { bank_name: input.bankName } : {}), ...route },
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
  request?: PayoutRequestKey;
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
    throw new AppError('invalid_request', `currency ${currency} does not match the beneficiary's currency ${beneficiary.currency}`, {
      details: { field: 'currency' },
    });
  }
  const narration = `Withdrawal to ${beneficiary.name}`;
  const { routeMetadata: route, ...basics } = await payoutBasics(deps, currency, beneficiary.bankCode, input);
  return openHeldDebit(deps.sql, {
    ...basics,
    category: 'payout',
    channel: 'payout',
    title: narration,
    description: input.narration ?? narration,
    counterpartyName: beneficiary.name,
    counterpartyAccount: beneficiary.accountNumber,
    counterpartyBank: beneficiary.bankName,
    bankCode: beneficiary.bankCode,
    beneficiaryId: beneficiary.id,
    metadata: { beneficiary_id: beneficiary.id, ...route },
  });
}
