import got, { HTTPError, RequestError, type Got } from 'got';
import { z } from 'zod';
import { Decimal } from '@cowrie/core';
import {
  RailError,
  RailInputError,
  type CollectionRail,
  type InboundTransfer,
  type OpenedAccount,
  type OpenOneOffAccountInput,
  type OpenReservedAccountInput,
  type RailCustomer,
} from './types';

/** Header in which Paystack sends the hex HMAC-SHA512 of the raw body, keyed with the secret key. */
export const PAYSTACK_SIGNATURE_HEADER = 'x-paystack-signature';

export interface PaystackRailOptions {
  /** The secret key (`sk_live_…` / `sk_test_…`); sent as a bearer token, never logged. */
  secretKey: string;
  /** Default `https://api.paystack.co`. */
  baseUrl?: string;
  /** Per-request timeout. Default 10000 ms. */
  timeoutMs?: number;
  /** Bank slug dedicated accounts are opened at. Default `wema-bank`. */
  preferredBank?: string;
}

// Paystack's bank objects carry a slug, not the NIP code clients expect; the
// banks it opens virtual accounts at are few, so a table covers them.
const NIP_CODES: Record<string, string> = { 'wema-bank': '035', 'access-bank': '044', 'titan-paystack': '100039' };

const ZBank = z.object({ name: z.string(), slug: z.string().optional(), id: z.union([z.number(), z.string()]).optional() });
const ZEnvelope = z.object({ status: z.boolean(), message: z.string().optional(), data: z.unknown().optional() });
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

/** Minor units, as the exact integer's digits (never through a double). */
function toKobo(amount: Decimal): string {
  const minor = amount.times(100);
  if (!minor.isInteger()) throw new RailInputError('amount must have at most 2 decimal places on this collection rail', 'amount');
  return minor.toFixed(0);
}

/**
 * Paystack: one-off accounts are Pay-with-Transfer charges (`POST /charge` with
 * `bank_transfer.account_expires_at`); reserved accounts are dedicated virtual
 * accounts (`POST /customer`, then `POST /dedicated_account`). Retries are off:
 * opening is not idempotent at Paystack, and the caller answers 503 instead.
 */
export function createPaystackRail(options: PaystackRailOptions): CollectionRail {
  const client: Got = got.extend({
    prefixUrl: options.baseUrl ?? 'https://api.paystack.co',
    headers: { authorization: `Bearer ${options.secretKey}`, 'user-agent': 'cowrie-collections' },
    timeout: { request: options.timeoutMs ?? 10_000 },
    retry: { limit: 0 },
  });

  async function call<T>(path: string, body: Record<string, unknown>, schema: z.ZodType<T>): Promise<{ data: T; raw: Record<string, unknown> }> {
    let payload: unknown;
    try {
      payload = await client.post(path, { json: body }).json();
    } catch (err) {
      if (err instanceof HTTPError) {
        const message = (ZEnvelope.safeParse(tryJson(err.response.body)).data?.message ?? '').slice(0, 200);
        throw new RailError(`paystack ${path} answered ${err.response.statusCode}${message ? `: ${message}` : ''}`, {
          provider: 'paystack',
          status: err.response.statusCode,
          retryable: err.response.statusCode >= 500,
        });
      }
      const code = err instanceof RequestError ? err.code : undefined;
      throw new RailError(`paystack ${path} failed: ${code ?? (err as Error).message}`, { provider: 'paystack', retryable: true });
    }
    const envelope = ZEnvelope.safeParse(payload);
    if (!envelope.success) throw new RailError(`paystack ${path}: unexpected response`, { provider: 'paystack' });
    if (!envelope.data.status) throw new RailError(`paystack ${path} refused: ${envelope.data.message ?? 'no message'}`, { provider: 'paystack' });
    const data = schema.safeParse(envelope.data.data);
    if (!data.success) throw new RailError(`paystack ${path}: response without account details`, { provider: 'paystack' });
    return { data: data.data, raw: envelope.data.data as Record<string, unknown> };
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
          amount: toKobo(input.amount),
          currency: input.currency,
          reference: input.reference,
          bank_transfer: { account_expires_at: input.expiresAt.toISOString() },
          metadata: { cowrie_reference: input.merchantReference, customer_name: input.customer.name },
        },
        ZCharge,
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
      const customer = await call('customer', { email, ...splitName(input.customer.name), metadata: { cowrie_reference: input.merchantReference } }, ZCustomer);
      const { data, raw } = await call(
        'dedicated_account',
        { customer: customer.data.customer_code, preferred_bank: options.preferredBank ?? 'wema-bank' },
        ZDedicatedAccount,
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

function tryJson(body: unknown): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const ZChargeSuccess = z.object({
  event: z.string(),
  data: z.object({
    reference: z.string().min(1),
    status: z.string(),
    // Kobo; above 2^53 a JSON number is already rounded, so such a notification is refused, never credited rounded.
    amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    currency: z.string().regex(/^[A-Za-z]{3,4}$/),
    channel: z.string().optional(),
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

export type TPaystackNotification = { kind: 'transfer'; transfer: InboundTransfer } | { kind: 'ignored'; event: string } | { kind: 'invalid'; reason: string };

/**
 * Reads a (signature-verified) Paystack notification. Only a successful charge
 * paid by bank transfer into one of our accounts is a transfer; other events are
 * acknowledged and ignored.
 */
export function parsePaystackNotification(body: unknown): TPaystackNotification {
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
      raw: body as Record<string, unknown>,
    },
  };
}
