import express, { type Express, type Router } from 'express';
import './http/express-types';
import type { GatewayDeps } from './deps';
import { useRequestContext } from './http/request-context';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { idempotencyLayer } from './http/idempotency';
import { jsonBody } from './http/json-body';
import { requireApiKeyWithinBudget, requireSession } from './http/api-auth';
import { httpMetrics } from './http/http-metrics';
import type { Lifecycle } from './http/lifecycle';
import { RouteRegistry } from './http/route-registry';
import { registerHealthRoutes } from './routes/health';
import { registerAuthRoutes } from './routes/auth';
import { registerPasswordResetRoutes } from './routes/password-reset';
import { registerMfaRoutes } from './routes/mfa';
import { registerCatalogRoutes } from './routes/catalog';
import { verificationSpecs } from './api/verifications/specs';
import { createVerificationHandlers } from './api/verifications/handlers';
import { registerDepositRoutes } from './routes/deposits';
import { registerRailNotificationRoutes } from './routes/rail-notifications';
import { registerVerificationReportRoutes } from './routes/verification-reports';
import { webhookSpecs } from './api/webhooks/specs';
import { createWebhookHandlers } from './api/webhooks/handlers';
import { payoutApiSpecs, payoutDashboardSpecs } from './api/payouts/specs';
import { createPayoutApiHandlers, createPayoutDashboardHandlers, createPayoutHandlers } from './api/payouts/handlers';
import { registerApiKeyRoutes } from './routes/api-keys';
import { registerDashboardApp } from './routes/dashboard-app';
import { registerDashboardLedgerRoutes } from './routes/dashboard-ledger';
import { registerDashboardExportRoutes } from './routes/dashboard-exports';
import { registerDashboardTransactionDetailRoute } from './routes/dashboard-transaction-detail';
import { registerDashboardVerificationRoutes } from './routes/dashboard-verifications';
import { registerDashboardDepositRoutes } from './routes/dashboard-deposits';
import { registerTeamRoutes } from './routes/team';
import { registerAuditEventRoutes } from './routes/audit-events';
import { registerTestHelperRoutes } from './routes/test-helpers';
import { registerDocsRoutes, registerMetricsRoute, registerQueueBoard } from './routes/operations';

export interface CreateAppOptions {
  /** Mounts extra /v1 routes behind the same auth, budget and idempotency layers (tests, extensions). */
  extraV1Routes?: (v1: Router) => void;
  /** The process's stop state (main): in-flight requests are counted and /readyz fails while draining. */
  lifecycle?: Lifecycle;
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
  if (options.lifecycle) app.use(options.lifecycle.middleware());
  app.use(httpMetrics(deps.metrics, routes));
  useRequestContext(app, deps.logger);
  // Before the JSON parser: provider signatures are checked over the raw body.
  // Before the rail notifications, whose router answers 404 for any other /rails path.
  registerVerificationReportRoutes(app, deps);
  registerRailNotificationRoutes(app, deps);
  app.use(jsonBody({ limit: deps.config.BODY_LIMIT }));

  // The reference document (/v1/openapi.json needs no key, so it precedes the
  // /v1 router), then /v1, the busiest, ahead of the operator and dashboard
  // routes that every /v1 request would otherwise be matched against first.
  const root = routes.on(app, '', { session: requireSession(deps), idempotency: idempotencyLayer(deps) });
  registerDocsRoutes(app, root);

  const v1 = express.Router({ caseSensitive: true });
  v1.use(requireApiKeyWithinBudget(deps), idempotencyLayer(deps));
  const api = routes.on(v1, '/v1');
  registerCatalogRoutes(api, deps);
  options.extraV1Routes?.(v1);
  api.routes(verificationSpecs, createVerificationHandlers(deps));
  registerDepositRoutes(api, deps);
  // One handler per payout action, for /v1 (API key) and the dashboard (session) alike.
  const payoutHandlers = createPayoutHandlers(deps);
  api.routes(payoutApiSpecs, createPayoutApiHandlers(deps, payoutHandlers));
  // Test keys only: to a live key these routes do not exist (404).
  registerTestHelperRoutes(api, deps);
  v1.use(notFoundHandler);
  app.use('/v1', v1);

  registerMetricsRoute(app, deps);
  registerQueueBoard(app, deps);
  registerHealthRoutes(root, deps, { stopping: options.lifecycle?.isStopping });
  registerAuthRoutes(root, deps);
  registerPasswordResetRoutes(root, deps);
  registerMfaRoutes(root, deps);
  root.routes(webhookSpecs, createWebhookHandlers(deps));
  registerApiKeyRoutes(root, deps);
  registerDashboardLedgerRoutes(root, deps);
  registerDashboardExportRoutes(root, deps);
  // After the export: /transactions/export is not a reference.
  registerDashboardTransactionDetailRoute(root, deps);
  registerDashboardVerificationRoutes(root, deps);
  registerDashboardDepositRoutes(root, deps);
  root.routes(payoutDashboardSpecs, createPayoutDashboardHandlers(deps, payoutHandlers));
  registerTeamRoutes(root, deps);
  registerAuditEventRoutes(root, deps);
  registerDashboardApp(app, deps.logger);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
