import express, { type Express } from 'express';
import './http/express-types';
import type { GatewayDeps } from './deps';
import { requestContext } from './http/request-context';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { idempotencyLayer } from './http/idempotency';
import { publicApiRateLimit, requireApiKey } from './http/api-auth';
import { registerHealthRoutes } from './routes/health';
import { registerAuthRoutes } from './routes/auth';
import { registerCatalogRoutes } from './routes/catalog';
import { registerPayoutRoutes } from './routes/payouts';

/** The gateway's HTTP app: conventions first, then /v1, the dashboard routes, then errors. */
export function createApp(deps: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  app.use(requestContext(deps.logger));
  app.use(express.json({ limit: deps.config.BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }));

  registerHealthRoutes(app, deps);
  registerAuthRoutes(app, deps);

  const v1 = express.Router();
  v1.use(requireApiKey(deps), publicApiRateLimit(deps), idempotencyLayer(deps));
  registerCatalogRoutes(v1, deps);
  registerPayoutRoutes(v1, deps);
  v1.use(notFoundHandler);
  app.use('/v1', v1);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
