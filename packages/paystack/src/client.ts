import got, { RequestError, TimeoutError, type Got } from 'got';
import { stringify } from 'lossless-json';
import { RailError, asObject } from '@cowrie/core';

export interface PaystackClientOptions {
  /** sk_live_… / sk_test_…: sent as a Bearer token, never logged nor put in an error. */
  secretKey: string;
  /** https://api.paystack.co, or a stand-in's URL. */
  baseUrl: string;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** The setting that holds the key, named when Paystack refuses it (`PAYOUT_PAYSTACK_SECRET_KEY`, `PAYSTACK_SECRET_KEY`). */
  keySetting: string;
}

/** Paystack's answer envelope: `{status, message, data}` (and `meta` on lists). */
export interface PaystackBody {
  status?: boolean;
  message?: string;
  data?: unknown;
  meta?: { next?: string | null };
}

export interface PaystackResponse {
  statusCode: number;
  body: PaystackBody;
}

export interface PaystackRequest {
  method: 'GET' | 'POST';
  /** Relative to the base URL, e.g. `transfer` or `bank/resolve`. */
  path: string;
  /**
   * True when the call asks Paystack to do something that must not be done
   * twice (send a transfer, open an account): a failure once the request may
   * have left is then `maybeSent`, and the caller asks before sending again.
   */
  sends?: boolean;
  /** Serialised losslessly: a LosslessNumber (a kobo amount) goes out with its exact digits, never through a double. */
  json?: object;
  searchParams?: Record<string, string>;
  /** Aborting abandons the call: the abort's reason is thrown, not a RailError. */
  signal?: AbortSignal;
}

export interface PaystackClient {
  /**
   * One attempt (Cowrie decides what to retry: a blind retry of POST /transfer
   * could pay twice). Throws RailError for what no caller can read: a timeout
   * (504), no connection or a 5xx or an unreadable body (502), refused
   * credentials or rate limiting (503). Any other answer, 4xx included, is
   * returned for the caller to read (`isSuccess`).
   */
  request(request: PaystackRequest): Promise<PaystackResponse>;
}

/** A 2xx whose envelope does not say `status: false`. */
export const isSuccess = (response: PaystackResponse) => response.statusCode >= 200 && response.statusCode < 300 && response.body.status !== false;

const ABSOLUTE_URL = /^[a-z][a-z\d+.-]*:\/\//i;

/** Paystack's documented API over `got`: the base URL, the Bearer secret, a timeout, JSON in and out. */
export function createPaystackClient(options: PaystackClientOptions): PaystackClient {
  const client: Got = got.extend({
    prefixUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.secretKey}`, accept: 'application/json' },
    timeout: { request: options.timeoutMs },
    retry: { limit: 0 },
    throwHttpErrors: false,
    responseType: 'text',
  });
  const provider = 'paystack';

  return {
    async request({ method, path, sends = false, json, searchParams, signal }) {
      // got sends an absolute URL as given, prefixUrl or not: only a path under the base URL may carry the secret key.
      if (ABSOLUTE_URL.test(path)) throw new Error('a Paystack request path must be relative to the base URL');
      let res;
      try {
        const body = json === undefined ? undefined : stringify(json);
        res = await client(path, {
          method,
          body,
          headers: body === undefined ? undefined : { 'content-type': 'application/json' },
          searchParams,
          signal,
        });
      } catch (err) {
        if (signal?.aborted) throw signal.reason ?? err;
        if (err instanceof TimeoutError)
          throw new RailError(504, `Paystack did not answer within ${options.timeoutMs} ms`, { provider, maybeSent: sends, cause: err });
        const code = err instanceof RequestError ? err.code : 'ERR';
        throw new RailError(502, `Paystack could not be reached (${code})`, { provider, maybeSent: sends && code !== 'ECONNREFUSED', cause: err });
      }
      let body: PaystackBody = {};
      try {
        body = asObject(JSON.parse(res.body || '{}')) as PaystackBody;
      } catch {
        if (res.statusCode < 500)
          throw new RailError(502, `Paystack answered ${res.statusCode} with a body that is not JSON`, {
            provider,
            maybeSent: sends,
            raw: { status_code: res.statusCode },
          });
      }
      if (res.statusCode >= 500)
        throw new RailError(502, `Paystack failed with HTTP ${res.statusCode}${body.message ? `: ${body.message}` : ''}`, {
          provider,
          maybeSent: sends,
          raw: { status_code: res.statusCode, ...body },
        });
      if (res.statusCode === 401 || res.statusCode === 403)
        throw new RailError(503, `Paystack refused Cowrie's credentials; check ${options.keySetting}`, { provider, maybeSent: false });
      if (res.statusCode === 429) throw new RailError(503, 'Paystack is rate limiting Cowrie; retry shortly', { provider, maybeSent: false });
      return { statusCode: res.statusCode, body };
    },
  };
}
