import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Scope } from '@cowrie/accounts';
import { assertScope, assertSessionMay, routeHiddenFromKey } from './api-auth';
import { parseBody, parseParams, parseQuery } from './validate';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** Who may call a route; the registry applies the guard and the document says it. */
export type RouteAuth =
  /**
   * /v1: the API key is checked by the router; `scope` null means any valid key.
   * `testModeOnly`: the route exists for test keys (`ck_test_`) only, a test
   * helper; to a live key it answers 404 as if it did not (routeHiddenFromKey).
   * `scopeByInput`: with `scope` null, the scope depends on the request body
   * (ScopeByInput): the registry asserts it once the body is parsed, and the
   * Idempotency-Key layer before it replays a stored answer.
   */
  | { kind: 'api_key'; scope: Scope | null; testModeOnly?: true; scopeByInput?: ScopeByInput }
  /**
   * Dashboard routes: a session JWT. Who may: `role` owner, team_admin (an
   * owner or an admin), or any user; when it is not given, reads (GET) are
   * for any user and changes for owners and admins only (sessionRoleOf).
   * `beforePasswordChange`: answers before a one-time password is changed.
   * `beforeMfaEnrolment`: answers to an owner or admin who must first turn on
   * a second factor (REQUIRE_MFA_FOR_ADMINS).
   * `stepUp`: a guarded change (money, keys, the team, new webhook endpoints, their URLs and
   * secrets): the session must have signed in or stepped up within
   * STEP_UP_SECONDS (POST /auth/step-up), else 403 step_up_required.
   */
  | { kind: 'session'; role?: SessionRole; beforePasswordChange?: true; beforeMfaEnrolment?: true; stepUp?: StepUpRule }
  | { kind: 'none' };

/**
 * The scope a request needs, read from its body: `scopeOf` answers undefined
 * only for a body the route's schema refuses (the 400 then comes from the
 * schema); `description` says which scope, for the document.
 */
export interface ScopeByInput {
  description: string;
  scopeOf: (body: unknown) => Scope | undefined;
}

/** Which users of a workspace a session route admits. */
export type SessionRole = 'owner' | 'team_admin' | 'any_user';

/**
 * When a session route needs a fresh step-up: always (`true`), or only for a
 * request whose body asks for the guarded change (`when`, read on the body as
 * sent; `description` says which, in the API document).
 */
export type StepUpRule = true | { when: (body: unknown) => boolean; description: string };

type SessionAuth = Extract<RouteAuth, { kind: 'session' }>;

/** A session route's role: its own, else any user for a read and owners and admins for a change. */
export const sessionRoleOf = (spec: { method: HttpMethod; auth: { kind: 'session'; role?: SessionRole } }): SessionRole =>
  spec.auth.role ?? (spec.method === 'get' ? 'any_user' : 'team_admin');

/** What a session route asks of one request's session (assertSessionMay): its role, what it answers before, and whether it needs a step-up. */
export interface SessionRule {
  role: SessionRole;
  beforePasswordChange?: true;
  beforeMfaEnrolment?: true;
  stepUp: boolean;
}

/** The rule of a session route for one request, `body` as sent (the step-up of a `when` rule depends on it). */
export function sessionRuleOf(spec: { method: HttpMethod; auth: SessionAuth }, body: unknown): SessionRule {
  const { stepUp } = spec.auth;
  return {
    role: sessionRoleOf(spec),
    beforePasswordChange: spec.auth.beforePasswordChange,
    beforeMfaEnrolment: spec.auth.beforeMfaEnrolment,
    stepUp: stepUp === true || (stepUp !== undefined && stepUp.when(body)),
  };
}

export interface RouteResponse {
  description: string;
  /** Schema of `data` in the success envelope; absent for error statuses (the error envelope). */
  data?: z.ZodType;
  /** The body is not enveloped (the OpenAPI document itself). */
  raw?: boolean;
  /** The body is a CSV file, not JSON (an export), streamed by the handler. */
  csv?: boolean;
  /** Schema of `meta` when it carries more than request_id (a page cursor). */
  meta?: z.ZodType;
}

export interface RouteSpec<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** Express path relative to the router it is mounted on ('/verifications/:reference'). */
  path: string;
  /** Stable name of the operation (SDK method names, docs anchors). */
  operationId: string;
  summary: string;
  description?: string;
  /** Section of the reference page. */
  tag: string;
  auth: RouteAuth;
  /** The schemas that validate the request: the handler receives their parsed output. */
  request?: { body?: B; query?: Q; params?: P };
  /**
   * A dashboard POST a retry could repeat (a key roll): it takes `Idempotency-Key`
   * like POST /v1 does. Every POST /v1 does already (the /v1 router applies it).
   */
  idempotent?: true;
  /**
   * Its success answer carries a secret (an API key, a signing secret, a
   * one-time password, a session token): every answer is sent with
   * `Cache-Control: no-store`, replays included, and the Idempotency-Key layer
   * stores it sealed (ENCRYPTION_KEY).
   */
  responseHoldsSecret?: true;
  /**
   * Its success answer names a payout (a transfer or a withdrawal): the
   * Idempotency-Key layer keeps it only while that payout has not failed, so a
   * retry after a definite failure runs a new attempt (`payoutAnswerKeepable`
   * and `payoutAnswerStands` of @cowrie/payouts).
   */
  answersPayout?: true;
  /** Every status the route answers on purpose: successes with their `data`, errors by description. */
  responses: Record<number, RouteResponse>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<B, Q, P> {
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
}

export type RouteHandler<B, Q, P> = (input: RouteInput<B, Q, P>, req: Request, res: Response) => unknown;

/** Any route's spec, as data (a domain's `specs.ts`). */
export type AnyRouteSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

type RequestPart<S, K extends 'body' | 'query' | 'params'> = S extends { request: { [k in K]: infer T } } ? (T extends z.ZodType ? T : undefined) : undefined;

/** The handler of one spec: its input typed by the spec's request schemas. */
export type HandlerOf<S> = RouteHandler<RequestPart<S, 'body'>, RequestPart<S, 'query'>, RequestPart<S, 'params'>>;

/** One handler per spec of a domain's specs (a domain's `handlers.ts`). */
export type HandlersOf<Specs> = { [K in keyof Specs]: HandlerOf<Specs[K]> };

/** A route as mounted: its spec plus the full path (`/v1/verifications/:reference`). */
export interface RegisteredRoute extends RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined> {
  fullPath: string;
}

export interface MountGuards {
  /** The session check of dashboard routes (requireSession). */
  session?: RequestHandler;
  /** The Idempotency-Key layer of routes marked `idempotent` (idempotencyLayer). */
  idempotency?: RequestHandler;
}

/**
 * A route's path template as express matches it (case-sensitive, an optional
 * trailing slash), its `:name` params captured in order. Only literal
 * segments and params are routes here: any other syntax is refused when the
 * route is declared, so this pattern and express's never disagree.
 */
function templatePattern(path: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const parts = path.split('/').map((part) => {
    if (/^:[A-Za-z_$][\w$]*$/.test(part)) {
      paramNames.push(part.slice(1));
      return '([^/]+)';
    }
    if (!/^[\w.~-]*$/.test(part)) throw new Error(`route path ${path}: only literal segments and :params are supported`);
    return part.replace(/\./g, '\\.');
  });
  return { pattern: new RegExp(`^${parts.join('/')}/?$`), paramNames };
}

/**
 * Every route the gateway serves through `route()`: the single source of the
 * OpenAPI document, the request validation and the metrics' route labels.
 */
export class RouteRegistry {
  readonly routes: RegisteredRoute[] = [];
  private readonly matchers: { method: string; regex: RegExp; route: RegisteredRoute }[] = [];

  /** A mount of this registry on `router`, whose paths live under `prefix` ('' or '/v1'). */
  on(router: Router, prefix: string, guards: MountGuards = {}): RouteMount {
    return new RouteMount(this, router, prefix, guards);
  }

  /** @internal */
  record(route: RegisteredRoute) {
    if (this.routes.some((r) => r.method === route.method && r.fullPath === route.fullPath)) {
      throw new Error(`route ${route.method.toUpperCase()} ${route.fullPath} registered twice`);
    }
    if (this.routes.some((r) => r.operationId === route.operationId)) throw new Error(`operationId ${route.operationId} used twice`);
    this.routes.push(route);
    this.matchers.push({ method: route.method.toUpperCase(), regex: templatePattern(route.fullPath).pattern, route });
  }

  /** The route template a method and raw path fall under, if any (for metric labels of requests refused before routing). */
  templateFor(method: string, path: string): string | undefined {
    return this.routeFor(method, path)?.fullPath;
  }

  /** The registered route a method and raw path fall under, if any (for layers that run before routing). */
  routeFor(method: string, path: string): RegisteredRoute | undefined {
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.matchers.find((x) => x.method === m && x.regex.test(path))?.route;
  }
}

/**
 * A route as its mount serves it, for a dispatcher that finds it without
 * express's router (direct-dispatch.ts): its method, its path relative to the
 * mount as a pattern whose groups are the params (express's matching:
 * case-sensitive, an optional trailing slash), and the handlers express runs
 * for it. `hidden`: it may pass a request on to the routes after it (a test
 * helper to a live key), which only express's router can do.
 */
export interface MountedRoute {
  method: string;
  pattern: RegExp;
  paramNames: string[];
  chain: RequestHandler[];
  hidden: boolean;
}

class RouteMount {
  /** The routes mounted through this mount, in their order. */
  readonly mounted: MountedRoute[] = [];

  constructor(
    readonly registry: RouteRegistry,
    readonly router: Router,
    readonly prefix: string,
    private readonly guards: MountGuards,
  ) {}

  /**
   * Declares and mounts one route: the guard of its `auth`, then its request
   * schemas (params, query, body: the first issue is a 400 naming the field),
   * then the handler with the parsed input.
   */
  route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, P extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<B, Q, P>,
    handler: RouteHandler<B, Q, P>,
  ): void {
    const fullPath = `${this.prefix}${spec.path}`;
    this.registry.record({ ...spec, fullPath } as RegisteredRoute);
    const guards: RequestHandler[] = [];
    if (spec.auth.kind === 'session') {
      if (!this.guards.session) throw new Error(`${fullPath} needs a session guard on its mount`);
      guards.push(this.guards.session);
    }
    if (spec.idempotent) {
      if (!this.guards.idempotency) throw new Error(`${fullPath} is idempotent but its mount has no idempotency layer`);
      guards.push(this.guards.idempotency);
    }
    const scope = spec.auth.kind === 'api_key' ? spec.auth.scope : null;
    const scopeByInput = spec.auth.kind === 'api_key' ? spec.auth.scopeByInput : undefined;
    const sessionAuth = spec.auth.kind === 'session' ? spec.auth : null;
    const noStore = spec.responseHoldsSecret === true;
    const { body, query, params } = spec.request ?? {};
    // One handler after the guards: the label, the scope, the schemas and the
    // route itself (each express handler is a router step on every request).
    const run: RequestHandler = async (req, res, next) => {
      // On to the next route, and at the end of the router its 404: to a key
      // it is hidden from, the route does not exist.
      if (routeHiddenFromKey(req, spec.auth)) return next();
      res.locals.routeTemplate = fullPath;
      // No browser or proxy keeps a secret (the Idempotency-Key layer marks its replays so too).
      if (noStore) res.set('Cache-Control', 'no-store');
      if (scope) assertScope(req, scope);
      if (sessionAuth) assertSessionMay(req, sessionRuleOf({ method: spec.method, auth: sessionAuth }, req.body));
      const input = {
        params: params ? parseParams(params, req) : undefined,
        query: query ? parseQuery(query, req) : undefined,
        body: body ? parseBody(body, req) : undefined,
      } as RouteInput<B, Q, P>;
      if (scopeByInput) {
        const needed = scopeByInput.scopeOf(input.body);
        if (!needed) throw new Error(`${fullPath}: scopeByInput found no scope for a body its schema accepted`);
        assertScope(req, needed);
      }
      await handler(input, req, res);
    };
    const label: RequestHandler = (_req, res, next) => {
      res.locals.routeTemplate = fullPath;
      // Before the guards: an idempotent replay of a secret is not cached either.
      if (noStore) res.set('Cache-Control', 'no-store');
      next();
    };
    const chain = guards.length ? [label, ...guards, run] : [run];
    this.router[spec.method](spec.path, ...chain);
    const hidden = spec.auth.kind === 'api_key' && spec.auth.testModeOnly === true;
    this.mounted.push({ method: spec.method.toUpperCase(), ...templatePattern(spec.path), chain, hidden });
  }

  /** Declares and mounts a domain's routes, in the order of its specs, each with its handler. */
  routes<Specs extends Record<string, AnyRouteSpec>>(specs: Specs, handlers: HandlersOf<Specs>): void {
    for (const [key, spec] of Object.entries(specs) as [keyof Specs, AnyRouteSpec][]) {
      this.route(spec, handlers[key] as RouteHandler<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>);
    }
  }
}
