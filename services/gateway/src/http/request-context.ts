import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Logger } from '@cowrie/core';

/** The fields of a request's log lines, and its child logger once one is asked for. */
interface RequestLog {
  bindings: Record<string, unknown>;
  logger?: Logger;
}

const REQUEST_LOG = Symbol('cowrie.requestLog');
type WithRequestLog = Request & { [REQUEST_LOG]?: RequestLog };

/**
 * Gives every request of `app` `req.log`, and answers what gives a request
 * its UUID (X-Request-Id) and the child logger `req.log` returns, carrying it
 * and whatever bindRequestLog adds: call it for every request as it arrives
 * (the app's first handler does). The child is made on
 * first use (a getter on the app's request prototype): most requests log
 * nothing at the production level, and a pino child (its bindings serialised
 * and redacted) is a measurable part of a request.
 */
export function useRequestContext(app: Express, logger: Logger): (req: Request, res: Response) => void {
  const loggerOf = (state: RequestLog): Logger => (state.logger ??= logger.child(state.bindings));
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: WithRequestLog): Logger {
      const state = this[REQUEST_LOG];
      return state ? loggerOf(state) : logger;
    },
  });
  const logsRequests = logger.isLevelEnabled('info');
  return (req: WithRequestLog, res) => {
    req.id = randomUUID();
    const state: RequestLog = { bindings: { requestId: req.id } };
    req[REQUEST_LOG] = state;
    res.setHeader('X-Request-Id', req.id);
    if (logsRequests) {
      const started = process.hrtime.bigint();
      // From the state, not req.log: a mounted sub-app (the queue board) swaps
      // the request's prototype, and a request it answered keeps that one.
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        loggerOf(state).info({ method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
      });
    }
  };
}

/** Adds fields (who is calling) to every later log line of this request. */
export function bindRequestLog(req: Request, bindings: Record<string, unknown>) {
  const state = (req as WithRequestLog)[REQUEST_LOG];
  if (!state) return;
  if (state.logger) state.logger = state.logger.child(bindings);
  else Object.assign(state.bindings, bindings);
}
