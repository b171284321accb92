import { randomUUID } from 'node:crypto';
import { version } from '../package.json';
import { CowrieApiError, type CowrieErrorCode } from './errors';
import { OPERATIONS, type operations } from './generated/openapi';
import { AutoPaginating, type Page } from './pagination';

/** This SDK's version; requests carry it as `User-Agent: cowrie-node/<version>`. */
export const SDK_VERSION: string = version;

export type OperationId = keyof typeof OPERATIONS & keyof operations;
type Op<O extends OperationId> = operations[O];

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes. */
export type RequestBody<O extends OperationId> =
  Op<O> extends { requestBody: infer R } ? JsonContent<R> : Op<O> extends { requestBody?: infer R } ? JsonContent<NonNullable<R>> : never;
/** The query parameters an operation reads. */
export type QueryParams<O extends OperationId> = Op<O> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The path parameters an operation needs. */
export type PathParams<O extends OperationId> = Op<O> extends { parameters: { path?: infer P } } ? NonNullable<P> : never;
type Responses<O extends OperationId> = Op<O> extends { responses: infer R } ? R : never;
/** The success body (`{data, meta}`) of an operation. */
export type SuccessBody<O extends OperationId> = JsonContent<Responses<O>[200 & keyof Responses<O>]> | JsonContent<Responses<O>[201 & keyof Responses<O>]>;
/** The `data` of an operation's success body. */
export type Data<O extends OperationId> = SuccessBody<O> extends { data: infer D } ? D : never;
/** The operations that answer a page of a list (`meta.next_cursor`) and take a `cursor`. */
export type PagedOperationId = {
  [O in OperationId]: SuccessBody<O> extends { meta: { next_cursor: string | null } } ? (QueryParams<O> extends { cursor?: string } ? O : never) : never;
}[OperationId];
/** One item of a paged operation's list. */
export type Item<O extends OperationId> = Data<O> extends Array<infer I> ? I : never;

export interface CallInput<O extends OperationId> {
  body?: RequestBody<O>;
  query?: QueryParams<O>;
  path?: PathParams<O>;
}

export interface CallOptions {
  /** The Idempotency-Key of this logical call (POST); every retry sends the same one. Default: a new UUID per call. */
  idempotencyKey?: string;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  signal?: AbortSignal;
}

export interface CowrieClientOptions {
  /** The gateway's base URL, e.g. http://127.0.0.1:3000 (without /v1). */
  baseUrl: string;
  /** API key for /v1 (Authorization: Bearer). */
  apiKey: string;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 250 ms). */
  retryDelayMs?: number;
  /** Longest wait honoured from a Retry-After header; a longer one is returned to the caller (default 5000 ms). */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout (default 30 s; payouts may wait for the rail). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** Spaces, tabs and line breaks around a header value, which fetch drops (and the API does too). */
const HTTP_WHITESPACE_AROUND = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** What an HTTP header value may hold (RFC 9110 field-value): tab, printable ASCII and U+0080 to U+00FF. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const CANNOT_CARRY = 'holds a character an HTTP header cannot carry (a line break or another control character, or one past U+00FF)';

/**
 * A header value of an option, trimmed as fetch would, or a TypeError that
 * names the option and never shows its value (an API key must not reach a log).
 */
function headerValueOf(option: 'apiKey' | 'idempotencyKey', value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`${option} must be a string; the request was not sent`);
  const trimmed = value.replace(HTTP_WHITESPACE_AROUND, '');
  if (!HEADER_VALUE.test(trimmed)) throw new TypeError(`${option} ${CANNOT_CARRY}; the request was not sent`);
  return trimmed;
}

/** The base URL as given, if it is an http(s) address without credentials; else a TypeError that does not show it. */
function checkedBaseUrl(baseUrl: unknown): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError('baseUrl is not a URL; the request was not sent');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be an http or https URL; the request was not sent');
  if (url.username || url.password) {
    throw new TypeError('baseUrl holds credentials (user:password@), which fetch refuses to send; the API key is the credential. The request was not sent');
  }
  return String(baseUrl).replace(/\/+$/, '');
}

/**
 * Whether an answer is worth another attempt with the same Idempotency-Key.
 * POSTs retry only where the request did not run, or ran and is stored for
 * replay: no answer, 429, 503, and 409 while the first attempt is still in
 * progress. GETs also retry 500, 502 and 504.
 */
function retryable(method: string, status: number, body: unknown): boolean {
  if (status === 429 || status === 503) return true;
  if (status === 409) return /still in progress/i.test(String((body as { error?: { message?: string } })?.error?.message ?? ''));
  return method === 'GET' && (status === 500 || status === 502 || status === 504);
}

/**
 * A typed client for Cowrie's /v1 API. Types come from the OpenAPI document
 * (src/generated/openapi.ts). Every POST carries an Idempotency-Key that stays
 * the same across the retries of one logical call, so a retried request is
 * replayed by the API, never executed twice.
 */
export class CowrieClient {
  // A private field: the API key is in no JSON.stringify or util.inspect of the client.
  readonly #opts: Required<Omit<CowrieClientOptions, 'fetch'>> & { fetch: typeof fetch };

  constructor(options: CowrieClientOptions) {
    this.#opts = {
      maxRetries: 2,
      retryDelayMs: 250,
      maxRetryAfterMs: 5000,
      timeoutMs: 30_000,
      ...options,
      fetch: options.fetch ?? globalThis.fetch,
    };
  }

  /**
   * Calls one operation by its operationId and returns its success body
   * (`{data, meta}`). An option the request cannot be sent with (an `apiKey`
   * or `idempotencyKey` no HTTP header can carry, an empty `idempotencyKey`, a
   * `baseUrl` that is no http(s) URL or holds credentials) throws a TypeError
   * before anything is sent, naming the option but never its value.
   */
  async call<O extends OperationId>(operation: O, input: CallInput<O> = {}, options: CallOptions = {}): Promise<SuccessBody<O>> {
    const { method, path } = OPERATIONS[operation];
    // Everything that could make fetch itself refuse the request is checked here, once: such a refusal is
    // no network error to retry, and fetch's own message would quote the header value (the API key).
    const baseUrl = checkedBaseUrl(this.#opts.baseUrl);
    const params = (input.path ?? {}) as Record<string, string | number>;
    let url = baseUrl + path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const query = Object.entries((input.query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined && v !== null);
    if (query.length) url += `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)] as [string, string])).toString()}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${headerValueOf('apiKey', this.#opts.apiKey)}`,
      accept: 'application/json',
      'user-agent': `cowrie-node/${SDK_VERSION}`,
    };
    if (method === 'POST') {
      const key = options.idempotencyKey === undefined ? randomUUID() : headerValueOf('idempotencyKey', options.idempotencyKey);
      // The API ignores an empty key: the call would run with none, and a retry could run it twice.
      if (key === '') throw new TypeError('idempotencyKey is empty: the API would run the call without one; the request was not sent');
      headers['idempotency-key'] = key;
    }
    const body = input.body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(input.body);
    if (body !== undefined) headers['content-type'] = 'application/json';

    const maxRetries = options.maxRetries ?? this.#opts.maxRetries;
    for (let attempt = 1; ; attempt++) {
      let status = 0;
      let payload: unknown;
      let retryAfterMs: number | undefined;
      let transportError: Error | undefined;
      try {
        const signal = options.signal
          ? AbortSignal.any([options.signal, AbortSignal.timeout(this.#opts.timeoutMs)])
          : AbortSignal.timeout(this.#opts.timeoutMs);
        const res = await this.#opts.fetch(url, { method, headers, body, signal });
        status = res.status;
        payload = await res.json().catch(() => undefined);
        const retryAfter = Number(res.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
        if (status >= 200 && status < 300) return payload as SuccessBody<O>;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        transportError = err as Error;
      }
      const canRetry =
        attempt <= maxRetries && (transportError !== undefined || retryable(method, status, payload)) && (retryAfterMs ?? 0) <= this.#opts.maxRetryAfterMs;
      if (!canRetry) {
        if (transportError) throw new CowrieApiError(0, 'network_error', transportError.message, undefined, undefined, attempt);
        const err = (payload as { error?: { code?: string; message?: string; details?: Record<string, unknown> }; request_id?: string }) ?? {};
        throw new CowrieApiError(
          status,
          (err.error?.code ?? 'unknown') as CowrieErrorCode,
          err.error?.message ?? `HTTP ${status}`,
          err.error?.details,
          err.request_id,
          attempt,
        );
      }
      const backoff = this.#opts.retryDelayMs * 2 ** (attempt - 1);
      await sleep(Math.max(retryAfterMs ?? 0, backoff / 2 + Math.random() * (backoff / 2)), options.signal);
    }
  }

  private async data<O extends OperationId>(operation: O, input: CallInput<O>, options?: CallOptions): Promise<Data<O>> {
    return ((await this.call(operation, input, options)) as { data: Data<O> }).data;
  }

  /**
   * A cursor-paginated list: awaited, its first page's `data` (or the whole
   * page, `whole`); iterated, every item of every page.
   */
  private list<O extends PagedOperationId, First>(
    operation: O,
    query: QueryParams<O>,
    options: CallOptions | undefined,
    answer: (page: Page<Item<O>>) => First,
  ) {
    return new AutoPaginating<Item<O>, First>(
      (cursor) => this.call(operation, { query: (cursor ? { ...query, cursor } : query) as QueryParams<O> }, options) as Promise<Page<Item<O>>>,
      answer,
    );
  }

  readonly channels = { list: (o?: CallOptions) => this.data('listChannels', {}, o) };
  readonly capabilities = { get: (o?: CallOptions) => this.data('getCapabilities', {}, o) };

  readonly verifications = {
    start: (body: RequestBody<'startVerification'>, o?: CallOptions) => this.data('startVerification', { body }, o),
    check: (reference: string, code: string, o?: CallOptions) => this.data('checkVerification', { path: { reference }, body: { code } }, o),
    get: (reference: string, o?: CallOptions) => this.data('getVerification', { path: { reference } }, o),
  };

  readonly deposits = { create: (body: RequestBody<'createDeposit'>, o?: CallOptions) => this.data('createDeposit', { body }, o) };

  readonly collections = {
    create: (body: RequestBody<'createCollection'>, o?: CallOptions) => this.data('createCollection', { body }, o),
    get: (id: number, o?: CallOptions) => this.data('getCollection', { path: { id } }, o),
  };

  readonly reservedAccounts = {
    create: (body: RequestBody<'createReservedAccount'>, o?: CallOptions) => this.data('createReservedAccount', { body }, o),
    /** Newest first; `await` for the first page's accounts, `for await` for all of them (see AutoPaginating). */
    list: (query: QueryParams<'listReservedAccounts'> = {}, o?: CallOptions) => this.list('listReservedAccounts', query, o, (page) => page.data),
    get: (id: number, o?: CallOptions) => this.data('getReservedAccount', { path: { id } }, o),
  };

  /**
   * A payout's Idempotency-Key answers the retries of one call (and, after a
   * definite failure, lets a retry run a new attempt). The body's
   * `idempotency_key` is the ledger's own key, which answers its payout forever
   * whatever its status: it is sent only when the caller puts it in the body.
   */
  readonly transfers = {
    create: (body: RequestBody<'createTransfer'>, o?: CallOptions) => this.data('createTransfer', { body }, o),
  };

  readonly withdrawals = {
    create: (body: RequestBody<'createWithdrawal'>, o?: CallOptions) => this.data('createWithdrawal', { body }, o),
  };

  readonly banks = {
    list: (query: QueryParams<'listBanks'> = {}, o?: CallOptions) => this.data('listBanks', { query }, o),
    resolve: (body: RequestBody<'resolveBankAccount'>, o?: CallOptions) => this.data('resolveBankAccount', { body }, o),
  };

  readonly beneficiaries = {
    create: (body: RequestBody<'createBeneficiary'>, o?: CallOptions) => this.data('createBeneficiary', { body }, o),
    /** Newest first; `await` for the first page's beneficiaries, `for await` for all of them (see AutoPaginating). */
    list: (query: QueryParams<'listBeneficiaries'> = {}, o?: CallOptions) => this.list('listBeneficiaries', query, o, (page) => page.data),
  };

  readonly balances = { list: (o?: CallOptions) => this.data('listBalances', {}, o) };
  readonly transactions = {
    /**
     * Newest first. `await` it for the first page, `{data, meta}` (pass
     * `meta.next_cursor` back as `cursor` for the next); `for await` it for
     * every transaction of every page; `.toArray({ limit })` for the first `limit`.
     */
    list: (query: QueryParams<'listTransactions'> = {}, o?: CallOptions) => this.list('listTransactions', query, o, (page) => page),
  };
  readonly recipients = {
    /** Most recent first; `await` for the first page's recipients, `for await` for all of them (see AutoPaginating). */
    list: (query: QueryParams<'listRecipients'> = {}, o?: CallOptions) => this.list('listRecipients', query, o, (page) => page.data),
  };

  /**
   * Test keys (`ck_test_`) only; a live key gets 404 `not_found`. What the
   * test side's sandbox would otherwise need a payer, a phone, a bank or an
   * event for, through the path the real thing takes.
   */
  readonly testHelpers = {
    /** A sandbox bank transfer into one of the workspace's test reserved accounts or collections. */
    transferIn: (body: RequestBody<'testTransferIn'>, o?: CallOptions) => this.data('testTransferIn', { body }, o),
    /** The code the sandbox sent for a verification. */
    verificationCode: (reference: string, o?: CallOptions) => this.data('testVerificationCode', { path: { reference } }, o),
    /** The sandbox bank returns a completed payout: it becomes `reversed`, the money back once. */
    reverseTransfer: (reference: string, o?: CallOptions) => this.data('testReverseTransfer', { path: { reference } }, o),
    /** A sample event sent to the test side's endpoints subscribed to it. */
    triggerWebhook: (event: RequestBody<'testTriggerWebhook'>['event'], o?: CallOptions) => this.data('testTriggerWebhook', { body: { event } }, o),
  };
}
