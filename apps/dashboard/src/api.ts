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
    /** The envelope's `details` (`reason`, `field`), when it has them. */
    readonly details: Record<string, unknown> = {},
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
export async function apiRequest<T>(session: Session, method: string, path: string, options: RequestOptions = {}) {
  const res = await send(session, method, path, 'application/json', options);
  const body = (await res.json().catch(() => null)) as (Page<T> & { error?: { code: string; message: string; details?: Record<string, unknown> } }) | null;
  if (!res.ok || !body) throw errorOf(res, body);
  return body;
}

/**
 * A file the service answers (a CSV export), read with the session's token as
 * a Blob, with the name its Content-Disposition gives. The page saves it
 * through an object URL: a plain link could not carry the token.
 */
export async function apiDownload(session: Session, path: string): Promise<{ blob: Blob; filename: string }> {
  const res = await send(session, 'GET', path, 'text/csv, application/json', {});
  if (!res.ok) throw errorOf(res, await res.json().catch(() => null));
  const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  try {
    return { blob: await res.blob(), filename };
  } catch {
    // The service cuts the connection when an export fails half way: never save half a file.
    throw new ApiError(0, 'network_error', 'The download was cut off before its end; try again.');
  }
}

type Session = { token: string | null; mode: Mode };

async function send(session: Session, method: string, path: string, accept: string, options: RequestOptions) {
  const headers: Record<string, string> = { accept, 'cowrie-mode': session.mode };
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  try {
    return await fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch {
    throw new ApiError(0, 'network_error', 'The service did not answer; check your connection and try again.');
  }
}

function errorOf(res: Response, body: { error?: { code: string; message: string; details?: Record<string, unknown> } } | null): ApiError {
  const error = body?.error;
  return new ApiError(res.status, error?.code ?? 'http_error', error?.message ?? `The service answered ${res.status} ${res.statusText}`, error?.details);
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
