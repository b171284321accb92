import type { components } from '@cowrie/sdk';

/** The API's schemas (the SDK's types, generated from the OpenAPI document). */
export type Schemas = components['schemas'];

export type Mode = 'live' | 'test';

/** An error answer of the API (its envelope's code and message), or a request that got no answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as Idempotency-Key: a retry of the same action is answered once. */
  idempotencyKey?: string;
}

export interface Page<T> {
  data: T;
  meta: { request_id: string; next_cursor?: string | null };
}

/**
 * One call to the service, with the session token and the mode the dashboard
 * shows. Answers the success envelope; throws an ApiError carrying the API's
 * message otherwise.
 */
export async function apiRequest<T>(session: { token: string | null; mode: Mode }, method: string, path: string, options: RequestOptions = {}) {
  const headers: Record<string, string> = { accept: 'application/json', 'cowrie-mode': session.mode };
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch {
    throw new ApiError(0, 'network_error', 'The service did not answer; check your connection and try again.');
  }
  const body = (await res.json().catch(() => null)) as (Page<T> & { error?: { code: string; message: string } }) | null;
  if (!res.ok || !body) {
    const error = body?.error;
    throw new ApiError(res.status, error?.code ?? 'http_error', error?.message ?? `The service answered ${res.status} ${res.statusText}`);
  }
  return body;
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
