import type { Request, RequestHandler, Response } from 'express';
import type { CowrieMetrics } from '@cowrie/metrics';
import type { RouteRegistry } from './route-registry';

/**
 * The route template a request falls under, never its raw path (ids in paths
 * would make one time series per record): the registered route that served
 * it, else the registered route its path matches (a request refused before
 * routing, by auth or the rate limit), else the express route, else `unmatched`.
 */
function routeLabel(req: Request, res: Response, registry: RouteRegistry): string {
  if (typeof res.locals.routeTemplate === 'string') return res.locals.routeTemplate;
  const path = req.originalUrl.split('?')[0] ?? '/';
  const registered = registry.templateFor(req.method, path);
  if (registered) return registered;
  if (req.route?.path && typeof req.route.path === 'string') return `${req.baseUrl}${req.route.path}`;
  for (const prefix of ['/ops/queues', '/docs', '/rails']) if (path === prefix || path.startsWith(`${prefix}/`)) return `${prefix}/*`;
  return 'unmatched';
}

/** Request counts and latency by method, route template and status. */
export function httpMetrics(metrics: CowrieMetrics, registry: RouteRegistry): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabel(req, res, registry), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
