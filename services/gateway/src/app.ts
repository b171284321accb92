import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import './http/express-types';
import type { GatewayDeps } from './deps';
import { useRequestContext } from './http/request-context';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { idempotencyLayer } from './http/idempotency';
import { jsonBody } from './http/json-body';
import { directDispatch, type DirectDispatch } from './http/direct-dispatch';
import { useFastJson } from './http/respond';
import { listenOnAppServer } from './http/app-server';
import { requireApiKeyWithinBudget, requireSession } from './http/api-auth';
import { httpMetrics } from './http/http-metrics';
import type { Lifecycle } from './http/lifecycle';
import { RouteRegistry } from './http/route-registry';
import { healthSpecs } from './api/health/specs';
import { createHealthHandlers } from './api/health/handlers';
import { authDashboardSpecs } from './api/auth/specs';
import { createAuthDashboardHandlers } from './api/auth/handlers';
import { catalogApiSpecs } from './api/catalog/specs';
import { createCatalogApiHandlers } from './api/catalog/handlers';
import { verificationDashboardSpecs, verificationSpecs } from './api/verifications/specs';
import { createVerificationDashboardHandlers, createVerificationHandlers } from './api/verifications/handlers';
import { depositApiSpecs, depositDashboardSpecs } from './api/deposits/specs';
import { createDepositApiHandlers, createDepositDashboardHandlers } from './api/deposits/handlers';
import { registerRailNotificationRoutes } from './routes/rail-notifications';
import { registerVerificationReportRoutes } from './routes/verification-reports';
import { webhookSpecs } from './api/webhooks/specs';
import { createWebhookHandlers } from './api/webhooks/handlers';
import { payoutApiSpecs, payoutDashboardSpecs } from './api/payouts/specs';
import { createPayoutApiHandlers, createPayoutDashboardHandlers, createPayoutHandlers } from './api/payouts/handlers';
import { apiKeyDashboardSpecs } from './api/keys/specs';
import { createApiKeyDashboardHandlers } from './api/keys/handlers';
import { registerDashboardApp } from './routes/dashboard-app';
import { ledgerDashboardSpecs } from './api/ledger/specs';
import { createLedgerDashboardHandlers } from './api/ledger/handlers';
import { teamDashboardSpecs } from './api/team/specs';
import { createTeamDashboardHandlers } from './api/team/handlers';
import { auditDashboardSpecs } from './api/audit/specs';
import { createAuditDashboardHandlers } from './api/audit/handlers';
import { testHelperApiSpecs } from './api/test-helpers/specs';
import { createTestHelperApiHandlers } from './api/test-helpers/handlers';
import { docsSpecs } from './api/docs/specs';
import { createDocsHandlers } from './api/docs/handlers';
import { registerDocsPages, registerMetricsRoute, registerQueueBoard } from './routes/operations';

export interface CreateAppOptions {
  /** Mounts extra /v1 routes behind the same auth, budget and idempotency layers (tests, extensions). */
  extraV1Routes?: (v1: Router) => void;
  /** The process's stop state (main): in-flight requests are counted and /readyz fails while draining. */
  lifecycle?: Lifecycle;
  /**
   * /v1 requests through express's router like every other request, rather
   * than dispatched directly (directDispatch): for tracing, whose express
   * instrumentation names a request's span by the route it finds in the router.
   */
  routeV1ThroughExpress?: boolean;
}

/** The registry of the routes an app serves (the OpenAPI document's source). */
export const routesOf = (app: Express): RouteRegistry => app.locals.routes as RouteRegistry;

/** The gateway's HTTP app: conventions first, then /v1, the dashboard routes, then errors. */
export function createApp(deps: GatewayDeps, options: CreateAppOptions = {}): Express {
  const app = express();
  const routes = new RouteRegistry();
  app.locals.routes = routes;
  app.disable('x-powered-by');
  // API responses are not cached by validators; hashing every body costs CPU.
  app.set('etag', false);
  // The client address (req.ip: sign-in limits, the operator pages' limit) is
  // the socket's unless TRUST_PROXY names the proxies in front.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  // Paths match in their own case only, as the route registry (the
  // Idempotency-Key layer's lookup, metric labels) matches them: /API-KEYS/5/ROLL
  // is not a route, rather than one served without the layer's checks.
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');
  useFastJson(app);
  listenOnAppServer(app);
  // The conventions every request keeps, in one handler (each handler is a
  // router step on every request): the in-flight count, the metrics, the
  // request id and logger.
  const track = options.lifecycle?.track;
  const measure = httpMetrics(deps.metrics, routes);
  const identify = useRequestContext(app, deps.logger);
  const keepConventions = (req: Request, res: Response) => {
    track?.(res);
    measure(res);
    identify(req, res);
  };
  app.use(function conventions(req, res, next) {
    keepConventions(req, res);
    next();
  });
  // Before the JSON parser: provider signatures are checked over the raw body.
  // Before the rail notifications, whose router answers 404 for any other /rails path.
  registerVerificationReportRoutes(app, deps);
  registerRailNotificationRoutes(app, deps);
  const parseJson = jsonBody({ limit: deps.config.BODY_LIMIT });

  // The reference document (/v1/openapi.json needs no key, so it precedes the
  // /v1 router), then /v1, the busiest, ahead of the operator and dashboard
  // routes that every /v1 request would otherwise be matched against first.
  const root = routes.on(app, '', { session: requireSession(deps), idempotency: idempotencyLayer(deps) });
  root.routes(docsSpecs, createDocsHandlers(routes));
  registerDocsPages(app);

  const v1 = express.Router({ caseSensitive: true });
  // The key first: a request without a usable key is 401 whatever its body, and
  // an authenticated one counts against its budget (its headers on a 400 or 413
  // for its body too) before the body is read.
  const v1Layers = inOneStep(requireApiKeyWithinBudget(deps), parseJson, idempotencyLayer(deps));
  v1.use(v1Layers);
  const api = routes.on(v1, '/v1');
  api.routes(catalogApiSpecs, createCatalogApiHandlers(deps));
  options.extraV1Routes?.(v1);
  api.routes(verificationSpecs, createVerificationHandlers(deps));
  api.routes(depositApiSpecs, createDepositApiHandlers(deps));
  // One handler per payout action, for /v1 (API key) and the dashboard (session) alike.
  const payoutHandlers = createPayoutHandlers(deps);
  api.routes(payoutApiSpecs, createPayoutApiHandlers(deps, payoutHandlers));
  // Test keys only: to a live key these routes do not exist (404).
  api.routes(testHelperApiSpecs, createTestHelperApiHandlers(deps));
  v1.use(notFoundHandler);
  app.use('/v1', v1);
  // Every other route's body (/v1 reads its own after the key check).
  app.use(parseJson);
  // Extra routes are express's alone (not in `api.mounted`): with them, /v1 goes through express.
  if (!options.extraV1Routes && !options.routeV1ThroughExpress) {
    dispatchDirectly(app, directDispatch({ prefix: '/v1', routes: api.mounted, before: [v1Layers], notFound: notFoundHandler }), keepConventions);
  }

  registerMetricsRoute(app, deps);
  registerQueueBoard(app, deps);
  root.routes(healthSpecs, createHealthHandlers(deps, { stopping: options.lifecycle?.isStopping }));
  root.routes(authDashboardSpecs, createAuthDashboardHandlers(deps));
  root.routes(webhookSpecs, createWebhookHandlers(deps));
  root.routes(apiKeyDashboardSpecs, createApiKeyDashboardHandlers(deps));
  // The export before the transaction detail (ledgerDashboardSpecs' order): /transactions/export is not a reference.
  root.routes(ledgerDashboardSpecs, createLedgerDashboardHandlers(deps));
  root.routes(verificationDashboardSpecs, createVerificationDashboardHandlers(deps));
  root.routes(depositDashboardSpecs, createDepositDashboardHandlers(deps));
  root.routes(payoutDashboardSpecs, createPayoutDashboardHandlers(deps, payoutHandlers));
  root.routes(teamDashboardSpecs, createTeamDashboardHandlers(deps));
  root.routes(auditDashboardSpecs, createAuditDashboardHandlers(deps));
  registerDashboardApp(app, deps.logger);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/**
 * Middlewares as one router step: each runs where the one before goes on,
 * and an error either throws or rejects goes to `next` as the router would send it.
 */
function inOneStep(...handlers: RequestHandler[]): RequestHandler {
  // Passed inline, not named: the bundle (keepNames) would name a named closure on every request.
  return (req, res, next) => runFrom(handlers, 0, req, res, next);
}

/** `handlers` from `index` on, for inOneStep: made once, so no request makes a named closure. */
function runFrom(handlers: RequestHandler[], index: number, req: Request, res: Response, next: NextFunction): void {
  const handler = handlers[index];
  if (!handler) return next();
  try {
    const ran: unknown = handler(req, res, (err?: unknown) => (err ? next(err) : runFrom(handlers, index + 1, req, res, next)));
    if (ran instanceof Promise) ran.catch((err: unknown) => next(err ?? new Error('Rejected promise')));
  } catch (thrown) {
    next(thrown);
  }
}

type AppHandle = (req: Request, res: Response, callback?: NextFunction) => void;

/**
 * A request `direct` finds a route for is set up as express's app and router
 * set up every request (the request and response prototypes, `res.locals`,
 * `originalUrl`, `baseUrl`, `params`), keeps the conventions, and runs its
 * route; an error goes to the error handler as the router would send it
 * there. Any other request goes to express's own handling, as before.
 */
function dispatchDirectly(app: Express, direct: DirectDispatch, keepConventions: (req: Request, res: Response) => void): void {
  const withExpress = (app as unknown as { handle: AppHandle }).handle;
  // After the error handler, as express's final handler does: an error once the answer has started cuts the connection.
  const afterErrorHandler = (req: Request) => (err?: unknown) => {
    if (err === undefined || err === null) return;
    req.log.error({ err }, 'unhandled error after the response started');
    req.socket.destroy();
  };
  (app as unknown as { handle: AppHandle }).handle = function handle(this: Express, req, res, callback) {
    const found = callback === undefined ? direct.find(req) : undefined;
    if (!found) return withExpress.call(this, req, res, callback);
    req.res = res;
    res.req = req;
    // Made with these prototypes by the app's own server (createAppServer); moved onto them otherwise, as express does.
    if (!app.request.isPrototypeOf(req)) Object.setPrototypeOf(req, app.request);
    if (!app.response.isPrototypeOf(res)) Object.setPrototypeOf(res, app.response);
    res.locals ??= Object.create(null) as Response['locals'];
    req.originalUrl ??= req.url;
    req.baseUrl = '';
    req.params = {};
    keepConventions(req, res);
    direct.run(found, req, res, (err?: unknown) => {
      try {
        errorHandler(err, req, res, afterErrorHandler(req));
      } catch (thrown) {
        afterErrorHandler(req)(thrown);
      }
    });
  };
}
