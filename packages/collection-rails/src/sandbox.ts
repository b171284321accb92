import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isoTimeField, JsonNumberText, parseAmount } from '@cowrie/core';
import { RailError, type CollectionRail, type InboundTransfer, type OpenedAccount, type OpenOneOffAccountInput, type OpenReservedAccountInput } from './types';

export const SANDBOX_BANK = { name: 'Cowrie Sandbox Bank', code: '999' } as const;
/** A client reference starting with this makes the sandbox refuse to open the account (503 provider_error). */
export const SANDBOX_FAIL_REFERENCE_PREFIX = 'rail_error';
/** Header carrying the hex HMAC-SHA512 of a sandbox notification's raw body. */
export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';

export interface SandboxRailOptions {
  /** Every opening fails, as a provider outage would (COLLECTION_SANDBOX_FAIL). Default false. */
  fail?: boolean;
  /** Artificial latency of every opening, as a slow provider's (tests). Default 0. */
  delayMs?: number;
}

/**
 * A deterministic 10-digit number for a reference: one-off accounts start with
 * 9, reserved ones with 8, so the same reference always gets the same account
 * and the two kinds never collide.
 */
export function sandboxAccountNumber(kind: 'one_off' | 'reserved', reference: string): string {
  const digest = createHash('sha256').update(`${kind}:${reference}`).digest();
  const n = digest.readBigUInt64BE(0) % 1_000_000_000n;
  return `${kind === 'one_off' ? '9' : '8'}${n.toString().padStart(9, '0')}`;
}

/** The offline sandbox rail (the default): no network, deterministic accounts. */
export function createSandboxRail(options: SandboxRailOptions = {}): CollectionRail {
  const refuse = async (merchantReference: string) => {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (options.fail || merchantReference.startsWith(SANDBOX_FAIL_REFERENCE_PREFIX)) {
      throw new RailError(503, 'sandbox rail: the bank is unavailable (forced failure)', { provider: 'sandbox', maybeSent: false });
    }
  };
  const account = (kind: 'one_off' | 'reserved', reference: string, accountName: string): OpenedAccount => {
    const accountNumber = sandboxAccountNumber(kind, reference);
    return {
      accountNumber,
      accountName,
      bankName: SANDBOX_BANK.name,
      bankCode: SANDBOX_BANK.code,
      providerAccountReference: `sbx_acct_${accountNumber}`,
      raw: { sandbox: true, kind, account_number: accountNumber },
    };
  };
  return {
    name: 'sandbox',
    async openOneOffAccount(input: OpenOneOffAccountInput) {
      await refuse(input.merchantReference);
      return { ...account('one_off', input.reference, input.accountName), expiresAt: input.expiresAt };
    },
    async openReservedAccount(input: OpenReservedAccountInput) {
      await refuse(input.merchantReference);
      return account('reserved', input.reference, input.accountName);
    },
  };
}

/** How far ahead of Cowrie's clock a sandbox notification's `paid_at` may be (the bank's clock may run a little fast). */
export const SANDBOX_PAID_AT_CLOCK_SKEW_MS = 60_000;

/** Body of POST /rails/sandbox/notifications: a transfer as the sandbox bank reports it. */
export const ZSandboxNotification = z.object({
  reference: z.string().trim().min(1).max(100),
  account_number: z.string().regex(/^\d{10}$/, 'must be 10 digits'),
  // A JsonNumberText is a JSON number a double cannot hold, kept as its digits by the gateway's exact reading (read exactly by parseAmount).
  amount: z.union([z.number(), z.string(), z.instanceof(JsonNumberText)]),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3,4}$/)
    .default('NGN'),
  sender_name: z.string().max(200).optional(),
  sender_account_number: z.string().max(20).optional(),
  sender_bank: z.string().max(200).optional(),
  narration: z.string().max(500).optional(),
  /** When the payer paid, ISO 8601 with an offset; absent, the notification's arrival. */
  paid_at: isoTimeField.optional(),
});

/**
 * Parses a sandbox notification; returns an error text for a malformed one,
 * or one whose `paid_at` is later than `now` by more than the clock skew
 * allowed (SANDBOX_PAID_AT_CLOCK_SKEW_MS).
 */
export function parseSandboxNotification(
  body: unknown,
  now: Date = new Date(),
): { kind: 'transfer'; transfer: InboundTransfer } | { kind: 'invalid'; reason: string } {
  const parsed = ZSandboxNotification.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: 'invalid', reason: `${issue.path.join('.') || 'body'}: ${issue.message}` };
  }
  const amount = parseAmount(parsed.data.amount);
  if (amount.kind === 'invalid') return { kind: 'invalid', reason: `amount ${amount.reason}` };
  if (!amount.value.greaterThan(0)) return { kind: 'invalid', reason: 'amount must be positive' };
  const n = parsed.data;
  const paidAt = n.paid_at === undefined ? null : new Date(n.paid_at);
  if (paidAt && paidAt.getTime() > now.getTime() + SANDBOX_PAID_AT_CLOCK_SKEW_MS) return { kind: 'invalid', reason: 'paid_at: must not be in the future' };
  return {
    kind: 'transfer',
    transfer: {
      provider: 'sandbox',
      providerReference: n.reference,
      accountNumber: n.account_number,
      amount: amount.value,
      currency: n.currency.toUpperCase(),
      senderName: n.sender_name ?? null,
      senderAccountNumber: n.sender_account_number ?? null,
      senderBank: n.sender_bank ?? null,
      narration: n.narration ?? null,
      paidAt,
      // The sandbox bank's money is never real.
      livemode: false,
      raw: n as unknown as Record<string, unknown>,
    },
  };
}
