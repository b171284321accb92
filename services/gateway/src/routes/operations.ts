import fs from 'node:fs';
import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import { Queue } from 'bullmq';
import { errorEnvelope, constantTimeEqual } from '@cowrie/core';
import { hasOperatorToken, renderMetrics } from '@cowrie/metrics';
import { clientAddressGroup, giveBackAttempt, takeAttempt } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import { notFoundHandler } from '../http/error-handler';

/**
 * The Scalar renderer's self-contained browser bundle (no CDN): copied beside
 * the compiled gateway by its build (dist/api-reference.js), or read from the
 * npm package when running from sources.
 */
function scalarBundlePath(): string {
  const candidates = [
    path.join(__dirname, 'api-reference.js'),
    ...(require.resolve.paths('@scalar/api-reference') ?? []).map((dir) => path.join(dir, '@scalar/api-reference/dist/browser/standalone.js')),
  ];
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error('the API reference renderer is missing: build the gateway (npm run build) or install @scalar/api-reference');
  return found;
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Cowrie API reference</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

/** What the page runs once the renderer is loaded: served as a file, so the policy can refuse every inline script. */
const DOCS_INIT_JS = `Scalar.createApiReference('#app', {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  // Its assistant (on by default on localhost) calls Scalar's registry through Scalar's proxy.
  agent: { disabled: true },
});
`;

/**
 * The reference page shares the dashboard's origin, where an open tab holds a
 * session: it runs only the scripts this service serves (the renderer styles
 * itself inline, so styles may be inline), reaches no other origin (the
 * renderer's proxy and registry calls are refused), and no page may frame it.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** The reference page at /docs, which renders the OpenAPI document (its route: api/docs). */
export function registerDocsPages(app: Express) {
  const bundle = scalarBundlePath();
  app.get('/docs', (_req, res) => {
    res
      .set({ ...DOCS_HEADERS, 'Cache-Control': 'no-cache' })
      .type('html')
      .send(DOCS_HTML);
  });
  app.get('/docs/init.js', (_req, res) => {
    res
      .set({ ...DOCS_HEADERS, 'Cache-Control': 'no-cache' })
      .type('application/javascript; charset=utf-8')
      .send(DOCS_INIT_JS);
  });
  app.get('/docs/scalar.js', (_req, res) => {
    res.sendFile(bundle, { maxAge: '1h', headers: { ...DOCS_HEADERS, 'Content-Type': 'application/javascript; charset=utf-8' } });
  });
}

/** GET /metrics: Prometheus text, for the operator token only; off (404) when METRICS_TOKEN is unset. */
export function registerMetricsRoute(app: Express, deps: GatewayDeps) {
  app.get('/metrics', async (req, res, next) => {
    const token = deps.config.METRICS_TOKEN;
    if (!token) return notFoundHandler(req, res, next);
    if (!hasOperatorToken(req.headers.authorization, token)) {
      res.set('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).json(errorEnvelope('unauthorized', 'The operator token is required: Authorization: Bearer <METRICS_TOKEN>', req.id));
      return;
    }
    const { body, contentType } = await renderMetrics(deps.metrics);
    res.set('Cache-Control', 'no-store').type(contentType).send(body);
  });
}

// Failed operator sign-ins per client address within 15 minutes of the first before even the right password is refused for the rest of the window.
const OPS_AUTH_FAILURES = 20;
const OPS_AUTH_WINDOW_SECONDS = 900;

/**
 * HTTP basic auth of the operator pages. Failed attempts are counted per
 * client address (an IPv6 one by its /64; each attempt takes a place first, a right password gives it
 * back) and logged without the credentials; past OPS_AUTH_FAILURES in the
 * window the address gets 429 until it ends.
 */
function basicAuth(deps: Pick<GatewayDeps, 'redis' | 'config'>, username: string, password: string): RequestHandler {
  return async (req, res, next) => {
    const key = `${deps.config.REDIS_KEY_PREFIX}ops-auth:${clientAddressGroup(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;
    const hit = await takeAttempt(deps.redis, { key, limit: OPS_AUTH_FAILURES, windowSeconds: OPS_AUTH_WINDOW_SECONDS });
    if (!hit.allowed) {
      res
        .status(429)
        .set('Retry-After', String(hit.retryAfterSeconds))
        .json(errorEnvelope('rate_limited', 'Too many failed operator sign-ins; try again later', req.id, { retry_after_seconds: hit.retryAfterSeconds }));
      return;
    }
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const ok = colon > 0 && constantTimeEqual(decoded.slice(0, colon), username) && constantTimeEqual(decoded.slice(colon + 1), password);
    if (ok) {
      await giveBackAttempt(deps.redis, key).catch(() => undefined);
      return next();
    }
    if (match) req.log.warn({ failures: hit.count, limit: OPS_AUTH_FAILURES }, 'operator sign-in failed');
    res.set('WWW-Authenticate', 'Basic realm="Cowrie operations", charset="UTF-8"');
    res.status(401).json(errorEnvelope('unauthorized', 'Operator credentials required', req.id));
  };
}

/** Every queue the gateway holds (deps.queues), so a queue added there shows up on the board. */
function gatewayQueues(deps: GatewayDeps): Queue[] {
  return Object.values(deps.queues).map((c) => c.queue);
}

/** Bull Board's router over the gateway's queues; its modules load here, on the first signed-in request, not at start. */
async function createQueueBoardRouter(deps: GatewayDeps, basePath: string): Promise<express.Router> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    // Read-only (OPS_BOARD_READ_ONLY, the default in production): jobs can be looked at, not retried, cleaned or removed.
    queues: gatewayQueues(deps).map((queue) => new BullMQAdapter(queue, { readOnlyMode: deps.config.OPS_BOARD_READ_ONLY })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Cowrie queues' } },
  });
  return serverAdapter.getRouter() as express.Router;
}

/**
 * Bull Board at /ops/queues behind HTTP basic auth (OPS_USERNAME and
 * OPS_PASSWORD); off (404) unless both are set. Operators see jobs there,
 * and retry or clean them unless the board is read-only (OPS_BOARD_READ_ONLY).
 * The board is built on the first request that passes the credentials check.
 */
export function registerQueueBoard(app: Express, deps: GatewayDeps) {
  const { OPS_USERNAME: username, OPS_PASSWORD: password } = deps.config;
  if (!username || !password) return;
  const basePath = '/ops/queues';
  let boardRouter: Promise<express.Router> | undefined;
  const board = express.Router();
  board.use(basicAuth(deps, username, password), (req, res, next) => {
    (boardRouter ??= createQueueBoardRouter(deps, basePath)).then(
      (router) => router(req, res, next),
      (err: unknown) => {
        boardRouter = undefined;
        next(err);
      },
    );
  });
  app.use(basePath, board);
}
