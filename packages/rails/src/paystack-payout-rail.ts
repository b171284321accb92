import { LosslessNumber } from 'lossless-json';
import { asObject } from '@cowrie/core';
import { createPaystackClient, isSuccess, toKobo, type PaystackBody, type PaystackRequest, type PaystackResponse } from '@cowrie/paystack';
import { RailError, RailInputError, type PayoutRail, type Bank, type TransferRequest, type TransferResult, type TransferStatus } from './types';

export interface PaystackPayoutRailOptions {
  /** sk_live_… / sk_test_…; without it every call answers 503 (not configured). */
  secretKey?: string;
  /** The variable that holds the key, named when it is missing or refused. Default `PAYSTACK_SECRET_KEY`. */
  keySetting?: 'PAYSTACK_SECRET_KEY' | 'PAYOUT_PAYSTACK_SECRET_KEY';
  /** Default https://api.paystack.co. */
  baseUrl: string;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** The bank list to name banks from (the cached one); defaults to asking Paystack. */
  banks?: () => Promise<Bank[]>;
}

// Paystack's transfer states, mapped onto the ledger's. `otp` waits for a
// finalisation Cowrie never sends (disable OTP on the integration), so it
// stays pending and surfaces in the reconciler's logs.
const PAYSTACK_STATUS: Record<string, TransferStatus> = {
  success: 'completed',
  failed: 'failed',
  reversed: 'reversed',
  abandoned: 'failed',
  blocked: 'failed',
  rejected: 'failed',
};

/** A refusal that is Paystack's own (its balance, transfers not enabled on the integration), not the destination's. */
const PAYSTACK_OWN_FAILURE = /balance is not enough|insufficient balance|cannot initiate third party payouts|transfers? (are|is) (not enabled|disabled)/i;

/**
 * Paystack's documented transfer API (transfer recipient, transfer, verify,
 * bank list, account resolve) over `got`. Timeouts → 504, 5xx → 502, missing
 * key or refused credentials → 503; a transfer that may have been sent says
 * so (`maybeSent`), and the caller asks `verifyTransfer` before resending.
 */
export function createPaystackPayoutRail(options: PaystackPayoutRailOptions): PayoutRail {
  const keySetting = options.keySetting ?? 'PAYSTACK_SECRET_KEY';
  const client = options.secretKey
    ? createPaystackClient({ secretKey: options.secretKey, baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, keySetting })
    : null;
  const notConfigured = () => new RailError(503, `The Paystack payout rail is not configured (${keySetting})`, { provider: 'paystack', maybeSent: false });

  async function call(request: PaystackRequest): Promise<PaystackResponse> {
    if (!client) throw notConfigured();
    return client.request(request);
  }

  function toResult(body: PaystackBody): TransferResult {
    const data = asObject(body.data);
    const paystackStatus = String(data.status ?? '');
    const status = PAYSTACK_STATUS[paystackStatus] ?? 'pending';
    const providerReference = typeof data.transfer_code === 'string' ? data.transfer_code : null;
    const recipient = asObject(data.recipient);
    const details = asObject(recipient.details);
    const accountName = typeof details.account_name === 'string' ? details.account_name : undefined;
    return {
      status,
      providerReference,
      accountName,
      reason: status === 'failed' ? String(data.reason ?? data.failures ?? body.message ?? `Paystack reported ${paystackStatus}`) : undefined,
      raw: body as Record<string, unknown>,
    };
  }

  const failed = (reason: string, raw: Record<string, unknown> = {}): TransferResult => ({
    status: 'failed',
    providerReference: null,
    reason,
    raw: { status: false, message: reason, ...raw },
  });

  async function resolveAccount({ accountNumber, bankCode }: { accountNumber: string; bankCode: string }) {
    const banks = await (options.banks ?? listBanks)();
    const bank = banks.find((b) => b.bankCode === bankCode);
    if (!bank) throw new RailInputError(`Unknown bank_code ${bankCode}; see GET /v1/banks`, 'bank_code');
    const r = await call({ method: 'GET', path: 'bank/resolve', searchParams: { account_number: accountNumber, bank_code: bankCode } });
    const data = asObject(r.body.data);
    if (!isSuccess(r) || typeof data.account_name !== 'string') {
      throw new RailInputError(`Could not resolve the account: ${r.body.message ?? 'unknown account'}`, 'account_number');
    }
    return { accountName: data.account_name, accountNumber: String(data.account_number ?? accountNumber), bankCode, bankName: bank.bankName };
  }

  async function listBanks(): Promise<Bank[]> {
    const banks = new Map<string, Bank>();
    let cursor: string | null | undefined;
    // Cursor pagination; a bound keeps a misbehaving upstream from looping us forever.
    for (let page = 0; page < 20; page += 1) {
      const searchParams: Record<string, string> = { country: 'nigeria', currency: 'NGN', perPage: '100', use_cursor: 'true' };
      if (cursor) searchParams.next = cursor;
      const r = await call({ method: 'GET', path: 'bank', searchParams });
      if (!isSuccess(r) || !Array.isArray(r.body.data))
        throw new RailError(502, `Paystack bank list failed: ${r.body.message ?? `HTTP ${r.statusCode}`}`, {
          provider: 'paystack',
          maybeSent: false,
        });
      for (const item of r.body.data.map(asObject)) {
        if (typeof item.code === 'string' && typeof item.name === 'string' && item.active !== false && !banks.has(item.code)) {
          banks.set(item.code, { bankCode: item.code, bankName: item.name });
        }
      }
      cursor = r.body.meta?.next;
      if (!cursor) break;
    }
    return [...banks.values()];
  }

  async function verifyTransfer(reference: string, opts: { signal?: AbortSignal } = {}): Promise<TransferResult | null> {
    const r = await call({ method: 'GET', path: `transfer/verify/${encodeURIComponent(reference)}`, signal: opts.signal });
    if (r.statusCode === 404 || (!isSuccess(r) && /not found/i.test(r.body.message ?? ''))) return null;
    if (!isSuccess(r))
      throw new RailError(502, `Paystack could not verify transfer ${reference}: ${r.body.message ?? `HTTP ${r.statusCode}`}`, {
        provider: 'paystack',
        maybeSent: false,
      });
    return toResult(r.body);
  }

  return {
    id: 'paystack',
    listBanks,
    resolveAccount,
    verifyTransfer,
    async transfer(req: TransferRequest) {
      if (!client) throw notConfigured();
      // Paystack counts in kobo; an amount finer than that cannot be sent exactly: a refusal before sending is a failed transfer.
      let kobo: string;
      try {
        kobo = toKobo(req.amount, 'Paystack transfers take at most 2 decimal places');
      } catch (err) {
        if (err instanceof RailInputError) return failed(err.message);
        throw err;
      }
      if (!req.bankCode) return failed('Paystack transfers need a bank_code');
      let accountName = req.accountName;
      if (!accountName) {
        try {
          accountName = (await resolveAccount({ accountNumber: req.accountNumber, bankCode: req.bankCode })).accountName;
        } catch (err) {
          if (err instanceof RailInputError) return failed(err.message);
          throw err;
        }
      }
      const recipient = await call({
        method: 'POST',
        path: 'transferrecipient',
        json: { type: 'nuban', name: accountName, account_number: req.accountNumber, bank_code: req.bankCode, currency: req.currency },
        signal: req.signal,
      });
      const recipientCode = asObject(recipient.body.data).recipient_code;
      if (!isSuccess(recipient) || typeof recipientCode !== 'string')
        return failed(`Paystack refused the recipient: ${recipient.body.message ?? `HTTP ${recipient.statusCode}`}`, recipient.body as Record<string, unknown>);
      req.onSend?.();
      const sent = await call({
        method: 'POST',
        path: 'transfer',
        sends: true,
        json: {
          source: 'balance',
          amount: new LosslessNumber(kobo),
          recipient: recipientCode,
          reason: req.narration,
          reference: req.reference,
          currency: req.currency,
        },
        signal: req.signal,
      });
      if (!isSuccess(sent)) {
        // A reference Paystack already holds: the first send landed; its state
        // is the answer. When verify cannot find it yet, Paystack still has the
        // reference: the outcome is unknown (money may have left), never a failure.
        if (/duplicate/i.test(sent.body.message ?? '')) {
          const known = await verifyTransfer(req.reference, { signal: req.signal });
          if (known) return known;
          throw new RailError(502, 'Paystack holds this transfer reference already but cannot show it yet', {
            provider: 'paystack',
            maybeSent: true,
            raw: sent.body as Record<string, unknown>,
          });
        }
        const refusal = failed(sent.body.message ?? `Paystack refused the transfer (HTTP ${sent.statusCode})`, sent.body as Record<string, unknown>);
        // Paystack's own balance too low: another rail may pay it.
        return PAYSTACK_OWN_FAILURE.test(refusal.reason ?? '') ? { ...refusal, failure: 'rail' } : refusal;
      }
      const result = toResult(sent.body);
      return { ...result, accountName: result.accountName ?? accountName };
    },
  };
}

/** Paystack's transfer events (its webhook), about a payout: `transfer.success`, `transfer.failed`, `transfer.reversed`. */
export type PaystackTransferNotification = { kind: 'transfer'; event: string; reference: string } | { kind: 'invalid'; reason: string } | { kind: 'other' };

/**
 * Reads a Paystack notification as a transfer event: its name and the
 * transfer's reference (Cowrie's `snd_` reference), or `other` for events
 * that are not about transfers (a charge, say).
 */
export function parsePaystackTransferNotification(body: unknown): PaystackTransferNotification {
  const b = asObject(body);
  const event = typeof b.event === 'string' ? b.event : '';
  if (!event.startsWith('transfer.')) return { kind: 'other' };
  const reference = asObject(b.data).reference;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100) return { kind: 'invalid', reason: 'data.reference is missing' };
  return { kind: 'transfer', event, reference };
}
