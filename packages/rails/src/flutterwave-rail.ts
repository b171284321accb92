import { timingSafeEqual } from 'node:crypto';
import got, { RequestError, TimeoutError, type Got } from 'got';
import { LosslessNumber, stringify } from 'lossless-json';
import { asObject } from '@cowrie/core';
import { RailError, RailInputError, type PayoutRail, type Bank, type TransferRequest, type TransferResult, type TransferStatus } from './types';

export interface FlutterwaveRailOptions {
  /** FLWSECK-… / FLWSECK_TEST-…; without it every call answers 503 (not configured). */
  secretKey?: string;
  /** Default https://api.flutterwave.com (the `/v3` paths are added). */
  baseUrl: string;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** The bank list to name banks from (the cached one); defaults to asking Flutterwave. */
  banks?: () => Promise<Bank[]>;
}

/** Flutterwave's answer envelope: `{status: "success" | "error", message, data}`. */
interface FlutterwaveBody {
  status?: string;
  message?: string;
  data?: unknown;
}

interface FlutterwaveResponse {
  statusCode: number;
  body: FlutterwaveBody;
}

const isSuccess = (r: FlutterwaveResponse) => r.statusCode >= 200 && r.statusCode < 300 && r.body.status === 'success';

// Flutterwave's transfer states onto the ledger's: NEW and PENDING are accepted, not settled.
const FLUTTERWAVE_STATUS: Record<string, TransferStatus> = {
  SUCCESSFUL: 'completed',
  FAILED: 'failed',
  REVERSED: 'reversed',
};

/**
 * A refusal or failure that is Flutterwave's own (its balance, its
 * configuration), not the destination's: another rail may pay it. Anything
 * else (a wrong account, a closed bank) is the destination's and would fail
 * on every rail.
 */
const RAIL_OWN_FAILURE =
  /insufficient (funds|balance)|balance (is )?(too )?low|not enough|wallet balance|transfers? (are|is) (not enabled|disabled)|ip (address )?not whitelisted/i;

/**
 * Flutterwave's documented v3 transfer API (create a transfer with our
 * reference, fetch it by reference, the bank list, account resolve) over
 * `got`, one attempt per call. Amounts go in major units, written with their
 * exact digits. Timeouts → 504, 5xx and resets → 502 (both `maybeSent` when
 * the call was the transfer), a missing key or refused credentials → 503; a
 * "duplicate reference" is answered from the transfer Flutterwave holds.
 */
export function createFlutterwaveRail(options: FlutterwaveRailOptions): PayoutRail {
  const provider = 'flutterwave';
  const client: Got | null = options.secretKey
    ? got.extend({
        prefixUrl: `${options.baseUrl.replace(/\/+$/, '')}/v3`,
        headers: { authorization: `Bearer ${options.secretKey}`, accept: 'application/json' },
        timeout: { request: options.timeoutMs },
        retry: { limit: 0 },
        throwHttpErrors: false,
        responseType: 'text',
      })
    : null;

  const notConfigured = () =>
    new RailError(503, 'The Flutterwave payout rail is not configured (PAYOUT_FLUTTERWAVE_SECRET_KEY)', { provider, maybeSent: false });

  async function call(request: {
    method: 'GET' | 'POST';
    path: string;
    json?: object;
    searchParams?: Record<string, string>;
    sends?: boolean;
    signal?: AbortSignal;
  }): Promise<FlutterwaveResponse> {
    if (!client) throw notConfigured();
    const sends = request.sends ?? false;
    let res;
    try {
      const body = request.json === undefined ? undefined : stringify(request.json);
      res = await client(request.path, {
        method: request.method,
        body,
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        searchParams: request.searchParams,
        signal: request.signal,
      });
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason ?? err;
      if (err instanceof TimeoutError)
        throw new RailError(504, `Flutterwave did not answer within ${options.timeoutMs} ms`, { provider, maybeSent: sends, cause: err });
      const code = err instanceof RequestError ? err.code : 'ERR';
      throw new RailError(502, `Flutterwave could not be reached (${code})`, { provider, maybeSent: sends && code !== 'ECONNREFUSED', cause: err });
    }
    let body: FlutterwaveBody = {};
    try {
      body = asObject(JSON.parse(res.body || '{}')) as FlutterwaveBody;
    } catch {
      if (res.statusCode < 500)
        throw new RailError(502, `Flutterwave answered ${res.statusCode} with a body that is not JSON`, {
          provider,
          maybeSent: sends,
          raw: { status_code: res.statusCode },
        });
    }
    if (res.statusCode >= 500)
      throw new RailError(502, `Flutterwave failed with HTTP ${res.statusCode}${body.message ? `: ${body.message}` : ''}`, {
        provider,
        maybeSent: sends,
        raw: { status_code: res.statusCode, ...body },
      });
    if (res.statusCode === 401 || res.statusCode === 403)
      throw new RailError(503, "Flutterwave refused Cowrie's credentials; check PAYOUT_FLUTTERWAVE_SECRET_KEY", { provider, maybeSent: false });
    if (res.statusCode === 429) throw new RailError(503, 'Flutterwave is rate limiting Cowrie; retry shortly', { provider, maybeSent: false });
    return { statusCode: res.statusCode, body };
  }

  function toResult(transfer: Record<string, unknown>, raw: Record<string, unknown>): TransferResult {
    const flwStatus = String(transfer.status ?? '');
    const status = FLUTTERWAVE_STATUS[flwStatus] ?? 'pending';
    const reason = status === 'failed' ? String(transfer.complete_message || `Flutterwave reported ${flwStatus}`) : undefined;
    return {
      status,
      providerReference: transfer.id === undefined || transfer.id === null ? null : String(transfer.id),
      accountName: typeof transfer.full_name === 'string' && transfer.full_name ? transfer.full_name : undefined,
      reason,
      failure: reason === undefined ? undefined : RAIL_OWN_FAILURE.test(reason) ? 'rail' : 'destination',
      raw,
    };
  }

  const refused = (reason: string, raw: Record<string, unknown>, failure: 'rail' | 'destination'): TransferResult => ({
    status: 'failed',
    providerReference: null,
    reason,
    failure,
    raw,
  });

  async function listBanks(): Promise<Bank[]> {
    const r = await call({ method: 'GET', path: 'banks/NG' });
    if (!isSuccess(r) || !Array.isArray(r.body.data))
      throw new RailError(502, `Flutterwave bank list failed: ${r.body.message ?? `HTTP ${r.statusCode}`}`, { provider, maybeSent: false });
    const banks = new Map<string, Bank>();
    for (const item of r.body.data.map(asObject)) {
      if (typeof item.code === 'string' && typeof item.name === 'string' && !banks.has(item.code))
        banks.set(item.code, { bankCode: item.code, bankName: item.name });
    }
    return [...banks.values()];
  }

  async function resolveAccount({ accountNumber, bankCode }: { accountNumber: string; bankCode: string }) {
    const banks = await (options.banks ?? listBanks)();
    const bank = banks.find((b) => b.bankCode === bankCode);
    if (!bank) throw new RailInputError(`Unknown bank_code ${bankCode}; see GET /v1/banks`, 'bank_code');
    const r = await call({ method: 'POST', path: 'accounts/resolve', json: { account_number: accountNumber, account_bank: bankCode } });
    const data = asObject(r.body.data);
    if (!isSuccess(r) || typeof data.account_name !== 'string')
      throw new RailInputError(`Could not resolve the account: ${r.body.message ?? 'unknown account'}`, 'account_number');
    return { accountName: data.account_name, accountNumber: String(data.account_number ?? accountNumber), bankCode, bankName: bank.bankName };
  }

  /**
   * The transfer Flutterwave holds under our reference (its list, filtered by
   * reference), or null. Null only when the filtered list is empty: a list
   * that holds other transfers was not filtered (or is one page of many), and
   * our transfer's absence from it proves nothing, so that is an error (the
   * payout stays unknown and is asked about again), never "not found", which
   * the grace window would turn into a failure of a payout that may be paid.
   */
  async function verifyTransfer(reference: string, opts: { signal?: AbortSignal } = {}): Promise<TransferResult | null> {
    const r = await call({ method: 'GET', path: 'transfers', searchParams: { reference }, signal: opts.signal });
    if (r.statusCode === 404) return null;
    if (!isSuccess(r) || !Array.isArray(r.body.data))
      throw new RailError(502, `Flutterwave could not show transfer ${reference}: ${r.body.message ?? `HTTP ${r.statusCode}`}`, { provider, maybeSent: false });
    const listed = r.body.data.map(asObject);
    const transfer = listed.find((t) => t.reference === reference);
    if (transfer) return toResult(transfer, { status: r.body.status, message: r.body.message, data: transfer });
    if (listed.length > 0)
      throw new RailError(502, `Flutterwave's transfer list was not filtered by reference ${reference}: whether it holds the transfer cannot be told`, {
        provider,
        maybeSent: true,
        raw: { listed: listed.length },
      });
    return null;
  }

  return {
    id: provider,
    listBanks,
    resolveAccount,
    verifyTransfer,
    async transfer(req: TransferRequest) {
      if (!client) throw notConfigured();
      if (!req.amount.isFinite() || req.amount.decimalPlaces() > 2 || req.amount.lte(0))
        return refused('Flutterwave transfers take at most 2 decimal places', { status: 'error', message: 'invalid amount' }, 'destination');
      if (!req.bankCode) return refused('Flutterwave transfers need a bank_code', { status: 'error', message: 'no bank code' }, 'destination');
      req.onSend?.();
      const sent = await call({
        method: 'POST',
        path: 'transfers',
        sends: true,
        json: {
          account_bank: req.bankCode,
          account_number: req.accountNumber,
          // Major units, with their exact digits (never through a double).
          amount: new LosslessNumber(req.amount.toFixed(2)),
          narration: req.narration,
          currency: req.currency,
          reference: req.reference,
          debit_currency: req.currency,
          ...(req.accountName ? { beneficiary_name: req.accountName } : {}),
        },
        signal: req.signal,
      });
      if (!isSuccess(sent)) {
        const message = sent.body.message ?? `Flutterwave refused the transfer (HTTP ${sent.statusCode})`;
        // A reference Flutterwave holds already: the first send landed; its state is the answer,
        // and while it cannot be shown the outcome is unknown (money may have left), never a failure.
        if (/duplicate|already exists|already been used/i.test(message)) {
          const known = await verifyTransfer(req.reference, { signal: req.signal });
          if (known) return known;
          throw new RailError(502, 'Flutterwave holds this transfer reference already but cannot show it yet', {
            provider,
            maybeSent: true,
            raw: sent.body as Record<string, unknown>,
          });
        }
        return refused(message, sent.body as Record<string, unknown>, RAIL_OWN_FAILURE.test(message) ? 'rail' : 'destination');
      }
      const result = toResult(asObject(sent.body.data), sent.body as Record<string, unknown>);
      return { ...result, accountName: result.accountName ?? req.accountName };
    },
  };
}

/** The header Flutterwave sends its webhooks with: the secret hash set on its dashboard, as is. */
export const FLUTTERWAVE_SIGNATURE_HEADER = 'verif-hash';

/** Whether a webhook's `verif-hash` is the configured secret hash (compared in constant time). */
export function verifyFlutterwaveHash(expected: string, received: string | undefined): boolean {
  if (!received) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Flutterwave's transfer webhook (`event: "transfer.completed"`, `event.type` Transfer), about a payout. */
export type FlutterwaveTransferNotification = { kind: 'transfer'; event: string; reference: string } | { kind: 'invalid'; reason: string } | { kind: 'other' };

/** Reads a Flutterwave webhook as a transfer event: its name and the transfer's reference, or `other` for events about something else. */
export function parseFlutterwaveTransferNotification(body: unknown): FlutterwaveTransferNotification {
  const b = asObject(body);
  const event = typeof b.event === 'string' ? b.event : '';
  const type = typeof b['event.type'] === 'string' ? (b['event.type'] as string) : '';
  if (!event.startsWith('transfer.') && !/transfer/i.test(type)) return { kind: 'other' };
  const reference = asObject(b.data).reference;
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100) return { kind: 'invalid', reason: 'data.reference is missing' };
  return { kind: 'transfer', event: event || 'transfer.completed', reference };
}
