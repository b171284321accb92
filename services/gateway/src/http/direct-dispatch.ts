import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MountedRoute } from './route-registry';

/** The methods a mounted route answers by itself (HEAD, OPTIONS and the rest go through express's router). */
const DIRECT_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

/** A path express would not read as it is written (a fragment, whitespace, a non-ASCII byte): left to parseurl. */
const UNUSUAL_PATH = /[^!$&-;=@-~]/;

type Step = (req: Request, res: Response, next: NextFunction) => unknown;

/** A request's route, found: the steps it runs and its params. */
export interface DirectRoute {
  steps: readonly Step[];
  params: Record<string, string>;
  url: string;
}

/**
 * `find`: the route of a request that can be dispatched directly, undefined
 * for any other; `run`: runs it, `next` taking an error as express's router
 * would pass it on.
 */
export interface DirectDispatch {
  find: (req: { method?: string; url?: string }) => DirectRoute | undefined;
  run: (found: DirectRoute, req: Request, res: Response, next: NextFunction) => void;
}

/**
 * Serves the requests of one mount (`prefix`, '/v1') without express's
 * router: an app-level layer walk and the mounted router's prefix trimming
 * and layer walk cost a measurable share of a /v1 request's CPU. `find`
 * answers the route of a request whose method and path fall under one of
 * `routes` (the mount's, in their order, the first that matches as express
 * would try them); `run` runs what express would run for it, `before` (the
 * body parser, the mount's own layers) and then the route's chain, with
 * `req.baseUrl`, `req.url` and `req.params` as the mounted router sets them.
 * For any other request `find` answers undefined, and the request goes
 * through express as before (app.ts, dispatchDirectly).
 *
 * A request is left to express whenever a route's own matching could differ:
 * a route that may pass the request on
 * (`hidden`), a method other than GET/POST/PUT/DELETE, a path with
 * characters parseurl would treat specially (a `%` escape among them), a
 * param that does not decode. An error from any step goes where express sends it (the app's error
 * handler), with the request's URL restored as the mounted router restores
 * it; a chain that ends without answering gets `notFound` as the mount's
 * router would give it.
 */
export function directDispatch(options: {
  prefix: string;
  routes: readonly MountedRoute[];
  before: RequestHandler[];
  notFound: RequestHandler;
}): DirectDispatch {
  const { prefix, routes, before, notFound } = options;
  // Each route with the steps it runs, `before` first.
  const table = routes.map((route) => ({ ...route, steps: [...before, ...route.chain] as Step[] }));
  const start = `${prefix}/`;
  const find = (req: { method?: string; url?: string }): DirectRoute | undefined => {
    const { method, url } = req;
    if (method === undefined || url === undefined) return undefined;
    if (!DIRECT_METHODS.has(method) || !url.startsWith(start)) return undefined;
    const query = url.indexOf('?');
    const path = query === -1 ? url.slice(prefix.length) : url.slice(prefix.length, query);
    if (UNUSUAL_PATH.test(path)) return undefined;
    let route: (typeof table)[number] | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of table) {
      if (candidate.method !== method) continue;
      match = candidate.pattern.exec(path);
      if (match) {
        route = candidate;
        break;
      }
    }
    if (!route || !match || route.hidden) return undefined;
    const params: Record<string, string> = {};
    try {
      for (let i = 0; i < route.paramNames.length; i++) params[route.paramNames[i]!] = decodeURIComponent(match[i + 1]!);
    } catch {
      return undefined;
    }
    return { steps: route.steps, params, url };
  };
  const run = (found: DirectRoute, req: Request, res: Response, next: NextFunction) => {
    new Dispatch(req, res, next, found.url, found.steps, notFound).enter(prefix, found.params).onward();
  };
  return { find, run };
}

/**
 * One request's run through its steps. A class, not closures: the bundle
 * (keepNames) names every named closure, which per request is measurable.
 */
class Dispatch {
  private at = 0;
  private readonly baseUrl: string;
  private readonly params: Request['params'];
  /** What each step gets as `next`. */
  readonly next: NextFunction;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    private readonly appNext: NextFunction,
    private readonly url: string,
    private readonly steps: readonly Step[],
    private readonly notFound: Step,
  ) {
    this.baseUrl = req.baseUrl;
    this.params = req.params;
    this.next = (err?: unknown) => this.onward(err);
  }

  /** Mounts the request as the mount's router would: its base URL, its URL within the mount, the route's params. */
  enter(prefix: string, params: Record<string, string>): this {
    this.req.baseUrl = prefix;
    this.req.url = this.url.slice(prefix.length);
    this.req.params = params;
    return this;
  }

  onward(err?: unknown): void {
    // 'route' and 'router' skip to routes or layers after this one: none of the mount's routes asks for that.
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') return this.fail(err);
    if (this.at >= this.steps.length || err === 'route' || err === 'router') {
      this.at = this.steps.length;
      return this.run(this.notFound);
    }
    this.run(this.steps[this.at++]!);
  }

  private run(step: Step): void {
    try {
      const ran = step(this.req, this.res, this.next);
      if (ran instanceof Promise) ran.catch((err: unknown) => this.fail(err));
    } catch (err) {
      this.fail(err);
    }
  }

  /** To the app's error handler, as the mounted router leaves it: the request's own URL, base URL and params. */
  private fail(err: unknown): void {
    this.req.baseUrl = this.baseUrl;
    this.req.url = this.url;
    this.req.params = this.params;
    this.appNext(err ?? new Error('Rejected promise'));
  }
}
