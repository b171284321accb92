import { randomBytes } from 'node:crypto';
import { AppError, formatAmount, type Decimal, type Logger } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import type { InboundTransfer } from '@cowrie/collection-rails';
import { receiveInboundTransfer, type InboundOutcome } from './receive-inbound-transfer';

/** The collection rail whose bank the sandbox transfers come from, in both modes. */
export const SANDBOX_COLLECTION_PROVIDER = 'sandbox';

export interface SandboxTransferInput {
  accountNumber: string;
  amount: Decimal;
  currency: string;
  /** The sandbox bank's reference of the transfer (its de-duplication key); a new one when absent. */
  reference?: string;
  senderName?: string;
  /** Who asked for it, kept in the transfer's raw record (`cowrie sandbox transfer-in`, the API's test helper). */
  source: string;
}

/**
 * A transfer the sandbox bank reports into one of its accounts: what `cowrie
 * sandbox transfer-in` and the transfer_in test helper hand to the inbound
 * path. Its money is never real (`livemode` false).
 */
export function sandboxInboundTransfer(input: SandboxTransferInput): InboundTransfer {
  const providerReference = input.reference ?? `sbx_${randomBytes(10).toString('hex')}`;
  return {
    provider: SANDBOX_COLLECTION_PROVIDER,
    providerReference,
    accountNumber: input.accountNumber,
    amount: input.amount,
    currency: input.currency,
    senderName: input.senderName ?? 'Sandbox Sender',
    narration: `Sandbox transfer into ${input.accountNumber}`,
    livemode: false,
    raw: {
      simulated: true,
      source: input.source,
      account_number: input.accountNumber,
      amount: formatAmount(input.amount),
      currency: input.currency,
      reference: providerReference,
    },
  };
}

/** The answer of the transfer_in test helper: what the inbound path made of the transfer. */
export interface SandboxTransferInResult {
  /** credited, or unmatched (recorded, credited to nobody: `reason` says why, e.g. amount_mismatch for a collection). */
  status: InboundOutcome['status'];
  reason: InboundOutcome['reason'];
  channel: InboundOutcome['channel'];
  account_number: string;
  amount: string;
  currency: string;
  /** The sandbox bank's reference of the transfer (collection.successful's `provider_reference`). */
  provider_reference: string;
  /** The credit's ledger reference when it was credited. */
  transaction_reference: string | null;
  collection_id: number | null;
  reserved_account_id: number | null;
}

/**
 * The transfer_in test helper: a sandbox bank transfer into one of the
 * workspace's own sandbox accounts (a reserved account or a one-off
 * collection), in the account's currency, through the inbound path a
 * provider's notification takes (receiveInboundTransfer): matched, credited
 * and evented (collection.successful), or kept unmatched with its reason as
 * that path decides. A number no account of this workspace holds is 404, so
 * a workspace never pays into another's account.
 */
export async function receiveSandboxTransferIn(
  deps: { db: PrismaClient; logger?: Logger; production?: boolean },
  input: { workspaceId: number; accountNumber: string; amount: Decimal },
): Promise<SandboxTransferInResult> {
  const where = { workspaceId: input.workspaceId, provider: SANDBOX_COLLECTION_PROVIDER, accountNumber: input.accountNumber };
  const account =
    (await deps.db.reservedAccount.findFirst({ where, select: { currency: true } })) ??
    (await deps.db.collection.findFirst({ where, select: { currency: true }, orderBy: { id: 'desc' } }));
  if (!account)
    throw new AppError('not_found', 'No reserved account or collection of this workspace has this account number', { details: { field: 'account_number' } });
  const outcome = await receiveInboundTransfer(
    deps,
    sandboxInboundTransfer({ accountNumber: input.accountNumber, amount: input.amount, currency: account.currency, source: 'test helper transfer_in' }),
  );
  return {
    status: outcome.status,
    reason: outcome.reason,
    channel: outcome.channel,
    account_number: input.accountNumber,
    amount: outcome.amount,
    currency: outcome.currency,
    provider_reference: outcome.provider_reference,
    transaction_reference: outcome.transaction_reference,
    collection_id: outcome.collection_id,
    reserved_account_id: outcome.reserved_account_id,
  };
}
