import { z } from 'zod';

// The `data` of each webhook event, as the API renders it. Unnamed here: the
// gateway gives the shared ones their names in the API document (Transaction,
// TransactionStatus, Customer, VerificationChannel, …EventData).

/** An ISO 8601 UTC timestamp as the API renders it. */
export const ZTimestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
/** An amount as the API renders it: a decimal string with 6 fractional digits. */
export const ZAmount = z.string().meta({ pattern: '^-?\\d+\\.\\d{6}$', description: 'Decimal string, 6 fractional digits', examples: ['1500.000000'] });

/** A ledger transaction's statuses. */
export const TRANSACTION_STATUSES = ['processing', 'completed', 'failed', 'reversed'] as const;
export const ZTransactionStatus = z.enum(TRANSACTION_STATUSES);

/** A ledger transaction: the answer of a payout, a row of /v1/transactions, the data of transfer.* events. */
export const ZTransaction = z.object({
  id: z.number().int(),
  type: z.string().meta({ description: 'debit for payouts' }),
  direction: z.string().meta({ description: 'out for payouts' }),
  category: z.string().meta({ description: 'send (transfers) or payout (withdrawals)' }),
  channel: z.string().meta({ description: 'transfer or payout' }),
  status: ZTransactionStatus,
  reference: z.string().meta({ description: 'Service-generated, prefix snd_' }),
  idempotencyKey: z.string(),
  businessId: z.number().int(),
  walletId: z.number().int(),
  currency: z.string(),
  amount: ZAmount,
  fees: ZAmount,
  title: z.string(),
  description: z.string(),
  provider: z.string(),
  providerReference: z.string().nullable(),
  counterpartyName: z.string().nullable(),
  counterpartyAccount: z.string().nullable(),
  counterpartyBank: z.string().nullable(),
  counterpartyEmail: z.string().nullable(),
  metadata: z.looseObject({ provider: z.string(), raw: z.record(z.string(), z.unknown()).meta({ description: 'The rail response object' }) }),
  createdAt: ZTimestamp,
  updatedAt: ZTimestamp,
});

/** A reserved account's customer. */
export const ZCustomer = z.object({ name: z.string(), email: z.string().nullable() });

/**
 * The channels a code can travel on. `whatsapp` came
 * after the first three, as an additive value: it takes the same Nigerian
 * phone numbers as sms and voice.
 */
export const VERIFICATION_CHANNELS = ['sms', 'voice', 'email', 'whatsapp'] as const;
export const ZVerificationChannel = z.enum(VERIFICATION_CHANNELS);

/** `data` of collection.successful. */
export const ZCollectionSuccessfulData = z.object({
  id: z.number().int().meta({ description: 'The id of the collection, or of the reserved account, that was paid into' }),
  reference: z.string().meta({ description: 'The reference of that collection or reserved account' }),
  amount: ZAmount,
  currency: z.string(),
  account_number: z.string(),
  provider_reference: z.string().meta({ description: "The rail's reference of the transfer" }),
  channel: z.enum(['collection_va', 'reserved_va']),
  paid_at: ZTimestamp,
});

/** `data` of webhook_endpoint.disabled. */
export const ZEndpointDisabledData = z.object({
  endpoint_id: z.number().int().meta({ description: 'The endpoint switched off' }),
  url: z.string(),
  reason: z.string().meta({ description: "The endpoint's `disabled_reason`" }),
  failing_since: ZTimestamp.meta({ description: 'When its run of failed deliveries began' }),
  failures: z.number().int().meta({ description: 'Failed deliveries since then' }),
  disabled_at: ZTimestamp,
});

/** `data` of collection.expired. */
export const ZCollectionExpiredData = z.object({
  id: z.number().int(),
  reference: z.string(),
  amount: ZAmount,
  currency: z.string(),
  account_number: z.string(),
  expires_at: ZTimestamp,
});

/** `data` of reserved_account.created. */
export const ZReservedAccountCreatedData = z.object({
  id: z.number().int(),
  reference: z.string(),
  account_number: z.string(),
  bank: z.string(),
  customer: ZCustomer,
  currency: z.string(),
  holder: z.enum(['business', 'customer']),
});

/** `data` of verification.verified, .failed and .expired. */
export const ZVerificationEventData = z.object({
  reference: z.string().meta({ format: 'uuid' }),
  channel: ZVerificationChannel,
  destination: z.string().meta({ description: 'Masked' }),
  status: z.enum(['verified', 'failed', 'expired']).meta({ description: "The verification's new status, as the event's name says" }),
  attempts: z.number().int().meta({ description: 'Checks counted so far' }),
  verified_at: ZTimestamp.nullable(),
  reason: z
    .enum(['invalid_code', 'too_many_attempts'])
    .optional()
    .meta({ description: 'verification.failed only: the last allowed check had a wrong code, or no check was left' }),
});

/** `data` of ping. */
export const ZPingData = z.object({ message: z.string(), endpoint_id: z.number().int().meta({ description: 'The endpoint tested' }) });
