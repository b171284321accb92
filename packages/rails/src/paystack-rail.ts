import got, { RequestError, TimeoutError, type Got } from 'got';
import { LosslessNumber, stringify } from 'lossless-json';
import { RailError, RailInputError, type PayoutRail, type TBank, type TTransferRequest, type TTransferResult, type TTransferStatus } from './types';

export interface PaystackRailOptions {
  /** sk_live_… / sk_test_…; without it every call answers 503 (not configured). */
  secretKey?: string;
  /** Default https://api.paystack.co. */
  baseUrl: string;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** The bank list to name banks from (the cached one); defaults to asking Paystack. */
  banks?: () => Promise<TBank[]>;
}

interface PaystackBody {
  status?: boolean;
  message?: string;
  data?: unknown;
  meta?: { next?: string | null };
}

type Phase = 'read' | 'prepare' | 'send';

interface CallResult {
  statusCode: number;
  body: PaystackBody;
}

// Paystack's transfer states, mapped onto the ledger's. `otp` waits for a
// finalisation Cowrie never sends (disable OTP on the integration), so it
// stays pending and surfaces in the reconciler's logs.
const PAYSTACK_STATUS: Record<string, TTransferStatus> = {
  success: 'completed',
  failed: 'failed',
  reversed: 'failed',
  abandoned: 'failed',
  blocked: 'failed',
  rejected: 'failed',
};

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * Paystack's documented transfer API (transfer recipient, transfer, verify,
 * bank list, account resolve) over `got`. Timeouts → 504, 5xx → 502, missing
 * key or refused credentials → 503; a transfer that may have been sent says
 * so (`maybeSent`), and the caller asks `verifyTransfer` before resending.
 */
export function createPaystackRail(options: PaystackRailOptions): PayoutRail {
  const client: Got | null = options.secretKey
    ? got.extend({
        prefixUrl: options.baseUrl.replace(/\/+$/, ''),
        headers: { authorization: `Bearer ${options.secretKey}`, accept: 'application/json' },
        timeout: { request: options.timeoutMs },
        // Cowrie decides what to retry: a blind retry of POST /transfer could pay twice.
        retry: { limit: 0 },
        throwHttpErrors: false,
        responseType: 'text',
        allowAbsoluteUrls: false,
      })
    : null;

  async function call(
    method: 'GET' | 'POST',
    path: string,
    phase: Phase,
    extra: { json?: object; searchParams?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<CallResult> {
    if (!client) throw new RailError(503, 'The Paystack payout rail is not configured (PAYOUT_PAYSTACK_SECRET_KEY)', { maybeSent: false });
    const maybeSent = phase === 'send';
    let res;
    try {
      // Serialised losslessly: a LosslessNumber (a kobo amount) goes out with its exact digits, never through a double.
      const body = extra.json === undefined ? undefined : stringify(extra.json);
      res = await client(path, {
        method,
        body,
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        searchParams: extra.searchParams,
        signal: extra.signal,
      });
    } catch (err) {
      if (extra.signal?.aborted) throw extra.signal.reason ?? err;
      if (err instanceof TimeoutError) throw new RailError(504, `Paystack did not answer within ${options.timeoutMs} ms`, { maybeSent, cause: err });
      const code = err instanceof RequestError ? err.code : 'ERR';
      throw new RailError(502, `Paystack could not be reached (${code})`, { maybeSent: maybeSent && code !== 'ECONNREFUSED', cause: err });
    }
    let body: PaystackBody = {};
    try {
      body = asObject(JSON.parse(res.body || '{}')) as PaystackBody;
    } catch {
      if (res.statusCode < 500)
        throw new RailError(502, `Paystack answered ${res.statusCode} with a body that is not JSON`, { maybeSent, raw: { status_code: res.statusCode } });
    }
    if (res.statusCode >= 500)
      throw new RailError(502, `Paystack failed with HTTP ${res.statusCode}${body.message ? `: ${body.message}` : ''}`, {
        maybeSent,
        raw: { status_code: res.statusCode, ...body },
      });
    if (res.statusCode === 401 || res.statusCode === 403)
      throw new RailError(503, "Paystack refused Cowrie's credentials; check PAYOUT_PAYSTACK_SECRET_KEY", { maybeSent: false });
    if (res.statusCode === 429) throw new RailError(503, 'Paystack is rate limiting Cowrie; retry shortly', { maybeSent: false });
    return { statusCode: res.statusCode, body };
  }

  const ok = (r: CallResult) => r.statusCode >= 200 && r.statusCode < 300 && r.body.status !== false;

  function toResult(body: PaystackBody): TTransferResult {
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

  const failed = (reason: string, raw: Record<string, unknown> = {}): TTransferResult => ({
    status: 'failed',
    providerReference: null,
    reason,
    raw: { status: false, message: reason, ...raw },
  });

  async function resolveAccount({ accountNumber, bankCode }: { accountNumber: string; bankCode: string }) {
    const banks = await (options.banks ?? listBanks)();
    const bank = banks.find((b) => b.bankCode === bankCode);
    if (!bank) throw new RailInputError(`Unknown bank_code ${bankCode}; see GET /v1/banks`, 'bank_code');
    const r = await call('GET', 'bank/resolve', 'read', { searchParams: { account_number: accountNumber, bank_code: bankCode } });
    const data = asObject(r.body.data);
    if (!ok(r) || typeof data.account_name !== 'string') {
      throw new RailInputError(`Could not resolve the account: ${r.body.message ?? 'unknown account'}`, 'account_number');
    }
    return { accountName: data.account_name, accountNumber: String(data.account_number ?? accountNumber), bankCode, bankName: bank.bankName };
  }

  async function listBanks(): Promise<TBank[]> {
    const banks = new Map<string, TBank>();
    let cursor: string | null | undefined;
    // Cursor pagination; a bound keeps a misbehaving upstream from looping us forever.
    for (let page = 0; page < 20; page += 1) {
      const searchParams: Record<string, string> = { country: 'nigeria', currency: 'NGN', perPage: '100', use_cursor: 'true' };
      if (cursor) searchParams.next = cursor;
      const r = await call('GET', 'bank', 'read', { searchParams });
      if (!ok(r) || !Array.isArray(r.body.data))
        throw new RailError(502, `Paystack bank list failed: ${r.body.message ?? `HTTP ${r.statusCode}`}`, { maybeSent: false });
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

  async function verifyTransfer(reference: string, opts: { signal?: AbortSignal } = {}): Promise<TTransferResult | null> {
    const r = await call('GET', `transfer/verify/${encodeURIComponent(reference)}`, 'read', { signal: opts.signal });
    if (r.statusCode === 404 || (!ok(r) && /not found/i.test(r.body.message ?? ''))) return null;
    if (!ok(r)) throw new RailError(502, `Paystack could not verify transfer ${reference}: ${r.body.message ?? `HTTP ${r.statusCode}`}`, { maybeSent: false });
    return toResult(r.body);
  }

  return {
    id: 'paystack',
    listBanks,
    resolveAccount,
    verifyTransfer,
    async transfer(req: TTransferRequest) {
      if (!client) throw new RailError(503, 'The Paystack payout rail is not configured (PAYOUT_PAYSTACK_SECRET_KEY)', { maybeSent: false });
      // Paystack counts in kobo; an amount finer than that cannot be sent exactly.
      const subunits = req.amount.times(100);
      if (!subunits.isInteger()) return failed('Paystack transfers take at most 2 decimal places');
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
      const recipient = await call('POST', 'transferrecipient', 'prepare', {
        json: { type: 'nuban', name: accountName, account_number: req.accountNumber, bank_code: req.bankCode, currency: req.currency },
        signal: req.signal,
      });
      const recipientCode = asObject(recipient.body.data).recipient_code;
      if (!ok(recipient) || typeof recipientCode !== 'string')
        return failed(`Paystack refused the recipient: ${recipient.body.message ?? `HTTP ${recipient.statusCode}`}`, recipient.body as Record<string, unknown>);
      const sent = await call('POST', 'transfer', 'send', {
        json: {
          source: 'balance',
          amount: new LosslessNumber(subunits.toFixed(0)),
          recipient: recipientCode,
          reason: req.narration,
          reference: req.reference,
          currency: req.currency,
        },
        signal: req.signal,
      });
      if (!ok(sent)) {
        // A reference Paystack already holds: the first send landed; its state is the answer.
        if (/duplicate/i.test(sent.body.message ?? '')) {
          const known = await verifyTransfer(req.reference, { signal: req.signal });
          if (known) return known;
        }
        return failed(sent.body.message ?? `Paystack refused the transfer (HTTP ${sent.statusCode})`, sent.body as Record<string, unknown>);
      }
      const result = toResult(sent.body);
      return { ...result, accountName: result.accountName ?? accountName };
    },
  };
}
