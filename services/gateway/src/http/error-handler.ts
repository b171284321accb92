import type { ErrorRequestHandler, RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import { AppError, errorEnvelope, isDependencyUnavailable } from '@cowrie/core';

/**
 * Unknown routes: 404 in the envelope, naming the path as the client asked
 * for it (the whole of it: a mounted router's `req.path` has lost its mount,
 * `/v1`), without the query string.
 */
export const notFoundHandler: RequestHandler = (req, res) => {
  const asked = req.originalUrl || req.url;
  const query = asked.indexOf('?');
  const path = query === -1 ? asked : asked.slice(0, query);
  res.status(404).json(errorEnvelope('not_found', `No route for ${req.method} ${path}`, req.id ?? randomUUID()));
};

interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  limit?: number;
}

/**
 * The one place an error becomes a response. AppErrors keep their code and
 * message; body-parser failures become 400/413/415; anything else is a 500
 * whose detail goes to the log only, under the request id.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) return next(err);
  const requestId = req.id ?? randomUUID();
  if (err instanceof AppError) {
    if (err.headers) res.set(err.headers);
    // Every 429 says when to come back: its retry_after_seconds is its Retry-After header too.
    const retryAfter = err.details?.retry_after_seconds;
    if (err.status === 429 && typeof retryAfter === 'number' && !res.get('Retry-After')) res.set('Retry-After', String(retryAfter));
    if (err.status >= 500) req.log?.warn({ errorCode: err.code, status: err.status, cause: String(err.cause ?? '') }, err.message);
    res.status(err.status).json(errorEnvelope(err.code, err.message, requestId, err.details));
    return;
  }
  const parserError = err as BodyParserError;
  switch (parserError.type) {
    case 'entity.parse.failed':
      res.status(400).json(errorEnvelope('invalid_request', 'The request body is not valid JSON', requestId));
      return;
    case 'entity.too.large':
      res.status(413).json(
        errorEnvelope('invalid_request', `The request body is larger than ${parserError.limit ?? 'the limit'} bytes`, requestId, {
          limit_bytes: parserError.limit,
        }),
      );
      return;
    case 'encoding.unsupported':
    case 'charset.unsupported':
      res.status(415).json(errorEnvelope('invalid_request', 'The request body must be UTF-8 JSON', requestId));
      return;
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      res.status(400).json(errorEnvelope('invalid_request', 'The request body could not be read', requestId));
      return;
    default:
      // Not a body-parser error, or one of its other kinds: decided by its status below.
      break;
  }
  const status = parserError.status ?? parserError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json(errorEnvelope('invalid_request', 'The request could not be read', requestId));
    return;
  }
  if (isDependencyUnavailable(err)) {
    // Postgres or Redis was lost for a moment (a failover, a restart): the
    // API's 503 provider_error (docs/conventions.md), which a client retries, not a 500.
    req.log?.warn({ err }, 'a dependency was unavailable; answered 503');
    res.set('Retry-After', '1');
    res
      .status(503)
      .json(
        errorEnvelope(
          'provider_error',
          'A service Cowrie depends on was briefly unavailable; retry the request (with the same Idempotency-Key for a write)',
          requestId,
        ),
      );
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json(errorEnvelope('internal_error', `Something went wrong on our side; quote request id ${requestId}`, requestId));
};
