import { z } from 'zod';
import { accountNumberField, amountField, bankCodeField, currencyCodeField, idField, optionalTextField, queryTimeField } from '@cowrie/core';
import {
  BENEFICIARY_PAGE_SIZES,
  PAYOUT_REQUEST_STATUSES,
  RECIPIENT_PAGE_SIZES,
  TRANSACTION_TYPES,
  ZApprovalThresholds,
  ZRejectPayoutRequest,
  listRecipients,
  renderBeneficiary,
  type PayoutRequestView,
  type RenderedTransaction,
  type WorkspaceSettingsView,
} from '@cowrie/payouts';
import { ZTransaction as ZTransactionData, ZTransactionStatus as ZTransactionStatusData } from '@cowrie/events';
import { renderBalance } from '@cowrie/ledger';
import type { Bank, ResolvedAccount } from '@cowrie/rails';
import { ZAmount, ZTimestamp, named, pageQueryFields, pageQueryFieldsOf, responseOf } from '../../openapi/schemas';

// Payouts, bank lookup, beneficiaries, the ledger views and payout approvals: the requests and answers of their routes.

const optionalCurrency = currencyCodeField.nullish().transform((v) => v ?? undefined);

export const ZTransferBody = named(
  'CreateTransferRequest',
  z.object({
    currency: currencyCodeField,
    amount: amountField(),
    account_number: accountNumberField,
    bank_code: bankCodeField.nullish().transform((v) => v ?? undefined),
    account_name: optionalTextField(200),
    bank_name: optionalTextField(200),
    narration: optionalTextField(255),
    idempotency_key: optionalTextField(255),
  }),
);

export const ZWithdrawalBody = named(
  'CreateWithdrawalRequest',
  z.object({
    currency: currencyCodeField,
    amount: amountField(),
    beneficiary_id: idField,
    narration: optionalTextField(255),
    idempotency_key: optionalTextField(255),
  }),
);

export const ZBanksQuery = z.object({
  country: z.string().trim().max(64).optional().meta({ description: 'Accepted, not used: the NGN rail lists Nigerian banks' }),
});
export const ZResolveBody = named(
  'ResolveBankAccountRequest',
  z.object({ account_number: accountNumberField, bank_code: bankCodeField, currency: optionalCurrency }),
);
export const ZBeneficiaryBody = named(
  'CreateBeneficiaryRequest',
  z.object({ name: optionalTextField(200), account_number: accountNumberField, bank_code: bankCodeField, currency: currencyCodeField }),
);
const ZTransactionStatus = named('TransactionStatus', ZTransactionStatusData);
/** Which transactions: the filters of the list and of the dashboard's export. */
export const ZTransactionFilters = z.object({
  status: ZTransactionStatus.optional().meta({ description: 'Only transactions with this status' }),
  currency: currencyCodeField.optional(),
  type: z.enum(TRANSACTION_TYPES).optional().meta({ description: 'debit (payouts) or credit (money in)' }),
  from: queryTimeField.optional().meta({ description: 'Only transactions created at or after this time (ISO 8601 with its offset)' }),
  to: queryTimeField.optional().meta({ description: 'Only transactions created before this time' }),
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Part of a reference (Cowrie's, the idempotency key or the rail's) or of the counterparty's name or account, any case" }),
});
export const ZBeneficiariesQuery = z.object(pageQueryFieldsOf(BENEFICIARY_PAGE_SIZES));
export const ZRecipientsQuery = z.object(pageQueryFieldsOf(RECIPIENT_PAGE_SIZES));
export const ZTransactionsQuery = ZTransactionFilters.extend({
  ...pageQueryFields,
});

/** A ledger transaction: the answer of a payout, a row of /v1/transactions, the data of transfer.* events (the webhook events' catalog declares it). */
export const ZTransaction = named('Transaction', responseOf<RenderedTransaction>()(ZTransactionData));
export const ZBank = named('Bank', responseOf<Bank>()(z.object({ bankCode: z.string(), bankName: z.string() })));
export const ZResolvedAccount = named(
  'ResolvedBankAccount',
  responseOf<ResolvedAccount>()(z.object({ accountName: z.string(), accountNumber: z.string(), bankCode: z.string(), bankName: z.string() })),
);
export const ZBeneficiary = named(
  'Beneficiary',
  responseOf<ReturnType<typeof renderBeneficiary>>()(
    z.object({
      id: z.number().int(),
      name: z.string(),
      account_number: z.string(),
      bank_code: z.string(),
      bank_name: z.string(),
      currency: z.string(),
      active: z.boolean(),
      created_at: ZTimestamp,
    }),
  ),
);
export const ZBalance = named(
  'Balance',
  responseOf<ReturnType<typeof renderBalance>>()(
    z.object({
      currency: z.string(),
      available: ZAmount,
      pending: ZAmount,
      ledger: ZAmount,
      status: z.enum(['live', 'sandbox', 'coming_soon']),
    }),
  ),
);
export const ZRecipient = named(
  'Recipient',
  responseOf<Awaited<ReturnType<typeof listRecipients>>['items'][number]>()(
    z.object({
      name: z.string().nullable(),
      account_number: z.string(),
      bank_code: z.string().nullable(),
      bank_name: z.string().nullable(),
      currency: z.string(),
      payouts: z.number().int(),
      last_sent_at: ZTimestamp,
    }),
  ),
);

export const ZBeneficiaryParams = z.object({ id: z.string().meta({ description: 'Beneficiary id' }) });
export const ZRemovedBeneficiary = named('RemovedBeneficiary', z.object({ id: z.number().int(), deleted: z.literal(true) }));

const ZUserRef = z.object({ user_id: z.number().int(), email: z.string() });

/** A payout request: the 202 of a dashboard payout above its threshold, and the rows of /payout-requests. */
export const ZPayoutRequest = named(
  'PayoutRequest',
  responseOf<PayoutRequestView>()(
    z.object({
      id: z.number().int(),
      kind: z.enum(['transfer', 'withdrawal']),
      status: z.enum(PAYOUT_REQUEST_STATUSES).meta({
        description:
          'pending (waiting), approved (its payout was sent: see `transaction`), rejected, or expired (24 hours passed while pending; it can no longer be approved)',
      }),
      currency: z.string(),
      amount: ZAmount,
      counterparty_name: z.string().nullable(),
      counterparty_account: z.string(),
      counterparty_bank: z.string().nullable(),
      beneficiary_id: z.number().int().nullable().meta({ description: 'The beneficiary of a withdrawal' }),
      narration: z.string().nullable(),
      requested_by: ZUserRef.meta({ description: 'Who asked for the payout' }),
      decided_by: ZUserRef.nullable().meta({ description: 'Who approved or rejected it' }),
      decided_at: ZTimestamp.nullable(),
      rejection_reason: z.string().nullable(),
      transaction: z
        .object({ id: z.number().int(), reference: z.string(), status: z.string() })
        .nullable()
        .meta({ description: 'The payout sent on approval (a ledger transaction), as it stands now' }),
      expires_at: ZTimestamp.meta({ description: 'Until when it can be approved (24 hours after it was made)' }),
      created_at: ZTimestamp,
    }),
  ),
);

export const ZWorkspaceSettings = named(
  'WorkspaceSettings',
  responseOf<WorkspaceSettingsView>()(
    z.object({
      payout_approval_thresholds: z
        .record(z.string(), ZAmount)
        .meta({ description: 'Currency → the amount above which a dashboard payout waits for an approval; {} when off' }),
    }),
  ),
);

export const ZSettingsBody = named('UpdateWorkspaceSettingsRequest', z.object({ payout_approval_thresholds: ZApprovalThresholds }));
export const ZRequestParams = z.object({ id: z.string().meta({ description: 'Payout request id' }) });
export const ZPayoutRequestsQuery = z.object({
  status: z.enum(PAYOUT_REQUEST_STATUSES).optional().meta({ description: 'Only requests with this status' }),
  ...pageQueryFields,
});
export const ZRejectBody = named('RejectPayoutRequest', ZRejectPayoutRequest);
