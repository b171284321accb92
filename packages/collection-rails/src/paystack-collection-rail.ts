import { z } from 'zod';
import { Decimal, isoTimeField } from '@cowrie/core';
import { createPaystackClient, isSuccess, toKobo } from '@cowrie/paystack';
import {
  RailError,
  type CollectionRail,
  type InboundTransfer,
  type OpenedAccount,
  type OpenOneOffAccountInput,
  type OpenReservedAccountInput,
  type RailCustomer,
} from './types';

/** Header in which Paystack sends the hex HMAC-SHA512 of the raw body, keyed with the secret key. */
export const PAYSTACK_SIGNATURE_HEADER = 'x-paystack-signature';

export interface PaystackCollectionRailOptions {
  /** The secret key (`sk_live_…` / `sk_test_…`); sent as a bearer token, never logged. */
  secretKey: string;
  /** Default `https://api.paystack.co`. */
  baseUrl?: string;
  /** Per-request timeout. Default 15000 ms (PAYSTACK_TIMEOUT_MS's). */
  timeoutMs?: number;
  /** Bank slug dedicated accounts are opened at. Default `wema-bank`. */
  preferredBank?: string;
}

// Paystack's bank objects carry a slug, not the NIP code clients expect; the
// banks it opens virtual accounts at are few, so a table covers them.
const NIP_CODES: Record<string, string> = { 'wema-bank': '035', 'access-bank': '044', 'titan-paystack': '100039' };

const ZBank = z.object({ name: z.string(), slug: z.string().optional(), id: z.union([z.number(), z.string()]).optional() });
const ZCharge = z.object({
  reference: z.string(),
  account_number: z.string(),
  account_name: z.string(),
  bank: ZBank,
  account_expires_at: z.string().nullish(),
});
const ZCustomer = z.object({ customer_code: z.string() });
const ZDedicatedAccount = z.object({ id: z.union([z.number(), z.string()]), account_number: z.string(), account_name: z.string(), bank: ZBank });

function splitName(name: string): { first_name: string; last_name: string } {
  const parts = name.trim().split(/\s+/);
  const first = parts[0] || name;
  return { first_name: first, last_name: parts.slice(1).join(' ') || first };
}

/** Paystack needs an email for every customer; the business's own accounts get a stable, undeliverable one. */
function customerEmail(customer: RailCustomer, reference: string): string {
  return customer.email ?? `${reference.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}@accounts.cowrie.invalid`;
}

/**
 * Paystack: one-off accounts are Pay-with-Transfer charges (`POST /charge` with
 * `bank_transfer.account_expires_at`); reserved accounts are dedicated virtual
 * accounts (`POST /customer`, then `POST /dedicated_account`). One attempt
 * each (`@cowrie/paystack`): opening is not idempotent at Paystack, and the
 * caller answers 503 instead.
 */
export function createPaystackCollectionRail(options: PaystackCollectionRailOptions): CollectionRail {
  const client = createPaystackClient({
    secretKey: options.secretKey,
    baseUrl: options.baseUrl ?? 'https://api.paystack.co',
    timeoutMs: options.timeoutMs ?? 15_000,
    keySetting: 'PAYSTACK_SECRET_KEY',
  });

  async function call<T>(
    path: string,
    body: Record<string, unknown>,
    schema: z.ZodType<T>,
    { opens }: { opens: boolean },
  ): Promise<{ data: T; raw: Record<string, unknown> }> {
    const res = await client.request({ method: 'POST', path, json: body, sends: opens });
    if (!isSuccess(res))
      throw new RailError(502, `Paystack refused ${path} (HTTP ${res.statusCode}): ${res.body.message ?? 'no message'}`, {
        provider: 'paystack',
        maybeSent: false,
        raw: { status_code: res.statusCode, ...res.body },
      });
    const data = schema.safeParse(res.body.data);
    if (!data.success)
      throw new RailError(502, `Paystack answered ${path} without the account's details`, { provider: 'paystack', maybeSent: opens, raw: { ...res.body } });
    return { data: data.data, raw: res.body.data as Record<string, unknown> };
  }

  const bankOf = (bank: z.infer<typeof ZBank>) => ({
    bankName: bank.name,
    bankCode: (bank.slug && NIP_CODES[bank.slug]) ?? bank.slug ?? String(bank.id ?? ''),
  });

  return {
    name: 'paystack',
    async openOneOffAccount(input: OpenOneOffAccountInput): Promise<OpenedAccount> {
      const { data, raw } = await call(
        'charge',
        {
          email: customerEmail(input.customer, input.reference),
          amount: toKobo(input.amount, 'amount must have at most 2 decimal places on this collection rail'),
          currency: input.currency,
          reference: input.reference,
          bank_transfer: { account_expires_at: input.expiresAt.toISOString() },
          metadata: { cowrie_reference: input.merchantReference, customer_name: input.customer.name },
        },
        ZCharge,
        { opens: true },
      );
      return {
        accountNumber: data.account_number,
        accountName: data.account_name,
        ...bankOf(data.bank),
        providerAccountReference: data.reference,
        expiresAt: data.account_expires_at ? new Date(data.account_expires_at) : input.expiresAt,
        raw,
      };
    },
    async openReservedAccount(input: OpenReservedAccountInput): Promise<OpenedAccount> {
      const email = customerEmail(input.customer, input.reference);
      const customer = await call(
        'customer',
        { email, ...splitName(input.customer.name), metadata: { cowrie_reference: input.merchantReference } },
        ZCustomer,
        {
          opens: false,
        },
      );
      const { data, raw } = await call(
        'dedicated_account',
        { customer: customer.data.customer_code, preferred_bank: options.preferredBank ?? 'wema-bank' },
        ZDedicatedAccount,
        { opens: true },
      );
      return {
        accountNumber: data.account_number,
        accountName: data.account_name,
        ...bankOf(data.bank),
        providerAccountReference: String(data.id),
        raw: { ...raw, customer_code: customer.data.customer_code },
      };
    },
  };
}

const ZChargeSuccess = z.object({
  event: z.string(),
  data: z.object({
    reference: z.string().min(1),
    // `live` or `test`: which of the integration's two domains (keys) the charge belongs to.
    domain: z.string().nullish(),
    status: z.string(),
    // Kobo; above 2^53 a JSON number is already rounded, so such a notification is refused, never credited rounded.
    amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Za-z]{3,4}$/),
    channel: z.string().optional(),
    // When the payer paid (ISO 8601): what a one-off collection's expiry is judged by. Read leniently (readPaidAt).
    paid_at: z.unknown().optional(),
    authorization: z
      .object({
        receiver_bank_account_number: z.string().nullish(),
        sender_name: z.string().nullish(),
        sender_bank: z.string().nullish(),
        sender_bank_account_number: z.string().nullish(),
        narration: z.string().nullish(),
      })
      .partial()
      .nullish(),
  }),
});

/**
 * Paystack's `paid_at`, or null when it is absent or not a time: the
 * notification's arrival then counts, which can only refuse a late payment,
 * never credit one. A notification is not refused for it: Paystack would
 * deliver it again for days, and the money would wait for nothing.
 */
function readPaidAt(value: unknown): Date | null {
  const time = isoTimeField.safeParse(value);
  return time.success ? new Date(time.data) : null;
}

export type PaystackNotification = { kind: 'transfer'; transfer: InboundTransfer } | { kind: 'ignored'; event: string } | { kind: 'invalid'; reason: string };

/**
 * Reads a (signature-verified) Paystack notification. Only a successful charge
 * paid by bank transfer into one of our accounts is a transfer; other events are
 * acknowledged and ignored. The transfer is `livemode` only when `data.domain`
 * is `live` (a test key's charges say `test`).
 */
export function parsePaystackNotification(body: unknown): PaystackNotification {
  const event = typeof body === 'object' && body && typeof (body as { event?: unknown }).event === 'string' ? (body as { event: string }).event : null;
  if (!event) return { kind: 'invalid', reason: 'event is missing' };
  if (event !== 'charge.success') return { kind: 'ignored', event };
  const parsed = ZChargeSuccess.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: 'invalid', reason: `${issue.path.join('.')}: ${issue.message}` };
  }
  const { data } = parsed.data;
  if (data.status !== 'success') return { kind: 'ignored', event: `${event}:${data.status}` };
  if (data.channel && data.channel !== 'dedicated_nuban' && data.channel !== 'bank_transfer') return { kind: 'ignored', event: `${event}:${data.channel}` };
  const auth = data.authorization ?? {};
  return {
    kind: 'transfer',
    transfer: {
      provider: 'paystack',
      providerReference: data.reference,
      accountNumber: auth.receiver_bank_account_number ?? null,
      // A Pay-with-Transfer charge is paid under the reference we opened it with.
      providerAccountReference: data.reference,
      amount: new Decimal(data.amount).dividedBy(100),
      currency: data.currency.toUpperCase(),
      senderName: auth.sender_name ?? null,
      senderAccountNumber: auth.sender_bank_account_number ?? null,
      senderBank: auth.sender_bank ?? null,
      narration: auth.narration ?? null,
      paidAt: readPaidAt(data.paid_at),
      livemode: data.domain === 'live',
      raw: body as Record<string, unknown>,
    },
  };
}
