import createClient, { type Client, type ClientPathsWithMethod, type MaybeOptionalInit } from 'openapi-fetch';
import type { components, paths } from '@cowrie/sdk';

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

/** The HTTP methods the dashboard sends. */
export type Method = 'get' | 'post' | 'put' | 'delete';

type Api = Client<paths, 'application/json'>;

/** The paths of the API document (the SDK's `paths`, generated from it) that answer `M`. */
export type PathOf<M extends Method> = ClientPathsWithMethod<Api, M>;

/** What a call sends, as the document declares it: path, query and header parameters, and the body. */
export type InitOf<M extends Method, P extends PathOf<M>> = MaybeOptionalInit<paths[P], M>;

/** `init` of a call: optional when the document requires no parameter or body. */
export type InitArgs<M extends Method, P extends PathOf<M>> = undefined extends InitOf<M, P> ? [init?: InitOf<M, P>] : [init: InitOf<M, P>];

type Operation<M extends Method, P extends PathOf<M>> = paths[P] extends Record<M, infer O> ? O : never;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The success answers' bodies of an operation (its 2xx JSON responses). */
type SuccessOf<O> = O extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R] : never;

/** The `data` of a call's success envelope, as the document declares it. */
export type DataOf<M extends Method, P extends PathOf<M>> = SuccessOf<Operation<M, P>> extends { data: infer D } ? D : never;
/** The `meta` of a call's success envelope (`request_id`; `next_cursor` on a page of a list). */
export type MetaOf<M extends Method, P extends PathOf<M>> = SuccessOf<Operation<M, P>> extends { meta: infer X } ? X : never;
/** A call's success envelope. */
export type Answer<M extends Method, P extends PathOf<M>> = { data: DataOf<M, P>; meta: MetaOf<M, P> };

/** A call of the API with a session: typed from the document by its method and path. */
export type Call = <M extends Method, P extends PathOf<M>>(method: M, path: P, ...init: InitArgs<M, P>) => Promise<Answer<M, P>>;

/** The GET paths whose answer is a page of a cursor-paged list (`meta.next_cursor`). */
export type PagedPath = { [P in PathOf<'get'>]: MetaOf<'get', P> extends { next_cursor: string | null } ? P : never }[PathOf<'get'>];

/** A GET path whose answer is a file (a CSV export). */
export type ExportPath = Extract<PathOf<'get'>, `${string}/export`>;
/** The query parameters (the filters) of an export. */
export type ExportQuery<P extends ExportPath> = NonNullable<NonNullable<InitOf<'get', P>>['params']>['query'];

type Session = { token: string | null; mode: Mode };

/** The typed client of one session: its token and mode on every request. */
function clientOf(session: Session): Api {
  const headers: Record<string, string> = { 'cowrie-mode': session.mode };
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  // The page's fetch at call time (not the one loaded with the module).
  return createClient<paths, 'application/json'>({ headers, fetch: (request) => fetch(request) });
}

/** One call as openapi-fetch types it, for a path and method known only as type parameters. */
type Send = (method: Method, path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * One call to the service, with the session's token and mode: `method` and
 * `path` are the API document's, `init` its parameters and body as the
 * document declares them. Answers the success envelope, typed from the
 * document; throws an ApiError carrying the API's message otherwise.
 */
export async function apiRequest<M extends Method, P extends PathOf<M>>(
  session: Session,
  method: M,
  path: P,
  ...[init]: InitArgs<M, P>
): Promise<Answer<M, P>> {
  const result = await sendOf(session)(method, path, init);
  if (result.error !== undefined || !result.response.ok || result.data === undefined) throw errorOf(result.response, result.error);
  // openapi-fetch parsed the JSON body of a success answer: what the document declares for it.
  return result.data as Answer<M, P>;
}

/**
 * A file the service answers (a CSV export), read with the session's token as
 * a Blob, with the name its Content-Disposition gives. The page saves it
 * through an object URL: a plain link could not carry the token.
 */
export async function apiDownload<P extends ExportPath>(session: Session, path: P, query: ExportQuery<P>): Promise<{ blob: Blob; filename: string }> {
  let result;
  try {
    result = await sendOf(session)('get', path, { params: { query }, headers: { accept: 'text/csv, application/json' }, parseAs: 'blob' });
  } catch (err) {
    // The service cuts the connection when an export fails half way: never save half a file.
    if (err instanceof ApiError && err.code === 'network_error') throw new ApiError(0, 'network_error', 'The download was cut off before its end; try again.');
    throw err;
  }
  if (result.error !== undefined || !result.response.ok || !(result.data instanceof Blob)) throw errorOf(result.response, result.error);
  const filename = /filename="([^"]+)"/.exec(result.response.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  return { blob: result.data, filename };
}

function sendOf(session: Session): Send {
  const client = clientOf(session);
  return async (method, path, init) => {
    try {
      // openapi-fetch's request() checks `init` against `path` when both are literal; here they are
      // type parameters, checked by apiRequest's and apiDownload's signatures at each call site instead.
      return await (client.request as Send)(method, path, init);
    } catch {
      throw new ApiError(0, 'network_error', 'The service did not answer; check your connection and try again.');
    }
  };
}

function errorOf(res: Response, body: unknown): ApiError {
  const error =
    typeof body === 'object' && body !== null && 'error' in body
      ? (body as { error: { code?: unknown; message?: unknown; details?: unknown } }).error
      : undefined;
  return new ApiError(
    res.status,
    typeof error?.code === 'string' ? error.code : 'http_error',
    typeof error?.message === 'string' ? error.message : `The service answered ${res.status} ${res.statusText}`,
    typeof error?.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {},
  );
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
