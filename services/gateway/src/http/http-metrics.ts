import type { Request, Response } from 'express';
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

const STARTED = Symbol('cowrie.httpStarted');
type Timed = Response & { [STARTED]?: number };

/**
 * Request counts and latency by method, route template and status: call the
 * answer for every request as it arrives (the app's first handler does). One
 * 'finish' listener shared by every response (the response is its `this`),
 * not a closure per request.
 */
export function httpMetrics(metrics: CowrieMetrics, registry: RouteRegistry): (res: Response) => void {
  function onFinish(this: Timed) {
    const seconds = (performance.now() - this[STARTED]!) / 1e3;
    const labels = { method: this.req.method, route: routeLabel(this.req, this, registry), status: String(this.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
  }
  return (res: Timed) => {
    res[STARTED] = performance.now();
    res.on('finish', onFinish);
  };
}
