import { z } from 'zod';
import { currencyCodeField, idField } from '@cowrie/core';
import {
  COLLECTION_STATUSES,
  RESERVED_ACCOUNT_PAGE_SIZES,
  ZCollectionRequest,
  ZDepositRequest,
  ZReservedAccountRequest,
  type DepositPayment,
  type DepositResult,
  type renderCollection,
  type renderReservedAccount,
} from '@cowrie/deposits';
import { ZCustomer as ZCustomerData } from '@cowrie/events';
import { ZAmount, ZTimestamp, named, pageQueryFields, pageQueryFieldsOf, responseOf } from '../../openapi/schemas';

// Deposit surfaces, one-off collections, reserved accounts and the transfers into them: the requests and answers of their routes.

/** GET /reserved-accounts (/v1 and the dashboard's): newest first, the limit clamped rather than refused, like the delivery log's. */
export const ZListQuery = z.object({
  ...pageQueryFieldsOf(RESERVED_ACCOUNT_PAGE_SIZES, 'clamped'),
  currency: currencyCodeField.optional(),
  customer_email: z.string().max(254).optional().meta({ description: "Only this customer's accounts (case-insensitive)" }),
});

const ZDepositAccount = named(
  'DepositAccount',
  z.object({
    bank: z.string(),
    bank_code: z.string(),
    account_number: z.string(),
    account_name: z.string(),
    expires_at: ZTimestamp.optional().meta({ description: 'One-off accounts only' }),
  }),
);

/** A reserved account's customer (the webhook events' catalog declares it: reserved_account.created carries one). */
const ZCustomer = named('Customer', ZCustomerData);

export const ZDepositResult = named(
  'DepositSurface',
  responseOf<DepositResult>()(
    z.union([
      z.object({ channel: z.enum(['collection_va', 'reserved_va']), status: z.enum(['pending', 'active']), account: ZDepositAccount }),
      z.object({ channel: z.literal('open_banking'), status: z.literal('pending'), redirect_url: z.string() }),
    ]),
  ),
);

export const ZCollection = named(
  'Collection',
  responseOf<ReturnType<typeof renderCollection>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      status: z.string().meta({ description: 'pending, successful or expired' }),
      currency: z.string(),
      amount: ZAmount,
      amount_paid: ZAmount.nullable(),
      customer: ZCustomer.nullable(),
      account: ZDepositAccount,
      expires_at: ZTimestamp,
      paid_at: ZTimestamp.nullable(),
      provider: z.string(),
      provider_reference: z.string().nullable(),
      created_at: ZTimestamp,
      updated_at: ZTimestamp,
    }),
  ),
);

export const ZReservedAccount = named(
  'ReservedAccount',
  responseOf<ReturnType<typeof renderReservedAccount>>()(
    z.object({
      id: z.number().int(),
      reference: z.string(),
      holder: z.string().meta({ description: 'business or customer' }),
      status: z.string(),
      currency: z.string(),
      customer: ZCustomer,
      account: ZDepositAccount,
      provider: z.string(),
      created_at: ZTimestamp,
    }),
  ),
);

export const ZDepositPayment = named(
  'DepositPayment',
  responseOf<DepositPayment>()(
    z.object({
      id: z.number().int(),
      status: z.enum(['credited', 'unmatched']).meta({ description: 'credited to the wallet, or held back (see `reason`)' }),
      reason: z.string().nullable().meta({ description: 'Why a transfer credited nothing: a wrong amount or currency, a collection already paid or expired' }),
      amount: ZAmount,
      currency: z.string(),
      account_number: z.string().nullable(),
      collection_id: z.number().int().nullable(),
      reserved_account_id: z.number().int().nullable(),
      transaction_reference: z.string().nullable().meta({ description: 'The credit in the ledger, once credited' }),
      provider: z.string(),
      provider_reference: z.string(),
      sender_name: z.string().nullable(),
      sender_bank: z.string().nullable(),
      narration: z.string().nullable(),
      created_at: ZTimestamp,
    }),
  ),
);

export const ZCreateDepositBody = named('CreateDepositRequest', ZDepositRequest);
export const ZCreateCollectionBody = named('CreateCollectionRequest', ZCollectionRequest);
export const ZCreateReservedAccountBody = named('CreateReservedAccountRequest', ZReservedAccountRequest);

export const ZListCollectionsQuery = z.object({
  status: z.enum(COLLECTION_STATUSES).optional().meta({ description: 'Only collections with this status' }),
  ...pageQueryFields,
});

export const ZListDepositPaymentsQuery = z.object({
  collection_id: z.coerce.number().pipe(idField).optional().meta({ description: 'Only the transfers into this collection' }),
  reserved_account_id: z.coerce.number().pipe(idField).optional().meta({ description: 'Only the transfers into this reserved account' }),
  ...pageQueryFields,
});
