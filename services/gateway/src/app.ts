import express, { type Express, type Router } from 'express';
import './http/express-types';
import type { GatewayDeps } from './deps';
import { requestContext } from './http/request-context';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { idempotencyLayer } from './http/idempotency';
import { publicApiRateLimit, requireApiKey } from './http/api-auth';
import { registerHealthRoutes } from './routes/health';
import { registerAuthRoutes } from './routes/auth';
import { registerCatalogRoutes } from './routes/catalog';
import { registerVerificationRoutes } from './routes/verifications';
import { registerDepositRoutes } from './routes/deposits';
import { registerRailNotificationRoutes } from './routes/rail-notifications';
import { registerWebhookRoutes } from './routes/webhooks';
import { registerPayoutRoutes } from './routes/payouts';

export interface CreateAppOptions {
  /** Mounts extra /v1 routes behind the same auth, budget and idempotency layers (tests, extensions). */
  extraV1Routes?: (v1: Router) => void;
}

/** The gateway's HTTP app: conventions first, then /v1, the dashboard routes, then errors. */
export function createApp(deps: GatewayDeps, options: CreateAppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  // API responses are not cached by validators; hashing every body costs CPU.
  app.set('etag', false);
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  app.use(requestContext(deps.logger));
  // Before the JSON parser: provider signatures are checked over the raw body.
  registerRailNotificationRoutes(app, deps);
  app.use(express.json({ limit: deps.config.BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }));

  registerHealthRoutes(app, deps);
  registerAuthRoutes(app, deps);
  registerWebhookRoutes(app, deps);

  const v1 = express.Router();
  v1.use(requireApiKey(deps), publicApiRateLimit(deps), idempotencyLayer(deps));
  registerCatalogRoutes(v1, deps);
  options.extraV1Routes?.(v1);
  registerVerificationRoutes(v1, deps);
  registerDepositRoutes(v1, deps);
  registerPayoutRoutes(v1, deps);
  v1.use(notFoundHandler);
  app.use('/v1', v1);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
