import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '@cowrie/core';

/** The fields of a request's log lines, and its child logger once one is asked for. */
interface RequestLog {
  bindings: Record<string, unknown>;
  logger?: Logger;
}

const requestLogs = new WeakMap<Request, RequestLog>();

/**
 * Gives every request a UUID (X-Request-Id) and `req.log`, a child logger
 * carrying it and whatever bindRequestLog adds. The child is made on first
 * use: most requests log nothing at the production level, and a pino child
 * (its bindings serialised and redacted) is a measurable part of a request.
 */
export function requestContext(logger: Logger): RequestHandler {
  const logsRequests = logger.isLevelEnabled('info');
  return (req, res, next) => {
    req.id = randomUUID();
    const state: RequestLog = { bindings: { requestId: req.id } };
    requestLogs.set(req, state);
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (state.logger ??= logger.child(state.bindings)) });
    res.setHeader('X-Request-Id', req.id);
    if (logsRequests) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        req.log.info({ method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
      });
    }
    next();
  };
}

/** Adds fields (who is calling) to every later log line of this request. */
export function bindRequestLog(req: Request, bindings: Record<string, unknown>) {
  const state = requestLogs.get(req);
  if (!state) return;
  if (state.logger) state.logger = state.logger.child(bindings);
  else Object.assign(state.bindings, bindings);
}
