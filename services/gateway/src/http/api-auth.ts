import type { Request, RequestHandler, Response } from 'express';
import { AppError, type Mode } from '@cowrie/core';
import {
  apiKeyEpochKey,
  apiKeyUseRecorder,
  cachedApiKeyAuthenticator,
  findApiKeyRowWithSql,
  readApiKeyEpoch,
  currentSessionUser,
  managesTeam,
  looksLikeApiKey,
  verifySessionToken,
  type Scope,
} from '@cowrie/accounts';
import {
  hitDashboardBudget,
  hitPublicApiBudget,
  hitPublicApiBudgetAndRead,
  hitUnauthenticatedApiBudget,
  RefusedAddresses,
  setRateLimitHeaders,
  type FixedWindowHit,
} from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import { bindRequestLog } from './request-context';
import type { RouteAuth, SessionRule } from './route-registry';

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * /v1: `Authorization: Bearer <API key>` (missing, malformed, unknown or
 * revoked → 401, counted against its client address's budget of such
 * refusals, whose X-RateLimit-* headers it carries; past it 429, and this
 * process then answers that address 429 before looking up any key until the
 * window ends: RefusedAddresses), then the key's request
 * budget (fixed 60 s window in Redis, shared by all replicas; every response
 * of an authenticated request carries its X-RateLimit-* headers, the 429
 * included). A key this process knows is
 * checked against the revocation epoch read in the same Redis round trip as
 * its budget (cachedApiKeyAuthenticator): no Postgres read per request.
 */
export function requireApiKeyWithinBudget(deps: Pick<GatewayDeps, 'sql' | 'redis' | 'config' | 'logger'>): RequestHandler {
  const prefix = deps.config.REDIS_KEY_PREFIX;
  const authenticate = cachedApiKeyAuthenticator({ find: findApiKeyRowWithSql(deps.sql), readEpoch: () => readApiKeyEpoch(deps.redis, prefix) });
  const recordUse = apiKeyUseRecorder(deps.sql, (err) => deps.logger.warn({ err }, 'recording an API key last use failed'));
  const limit = deps.config.PUBLIC_API_RATE_LIMIT;
  // The budget and the epoch in one Redis command, but on a Cluster, where their keys lie in different slots.
  const epochKey = deps.redis.isCluster ? null : apiKeyEpochKey(prefix);
  const hitBudget = async (apiKeyLookupId: string) =>
    epochKey
      ? hitPublicApiBudgetAndRead(deps.redis, { keyPrefix: prefix, apiKeyLookupId, limit }, epochKey)
      : { hit: await hitPublicApiBudget(deps.redis, { keyPrefix: prefix, apiKeyLookupId, limit }), read: null };
  const epochIn = epochKey ? (budget: { read: string | null }) => budget.read : undefined;
  const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const unauthenticatedLimit = deps.config.PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT;
  const refusedAddresses = new RefusedAddresses();
  // A refusal counts against its address's budget of refusals, whose headers it carries (429 past it). Without Redis
  // the 401 goes without them: the refusal matters more than its count.
  const refuse = async (req: Request, res: Response, message: string): Promise<never> => {
    const address = clientAddress(req);
    const hit = await hitUnauthenticatedApiBudget(deps.redis, { keyPrefix: prefix, clientAddress: address, limit: unauthenticatedLimit }).catch(() => null);
    if (hit) {
      setRateLimitHeaders(hit, (name, value) => res.setHeader(name, value));
      refusedAddresses.note(address, hit);
      refuseOverBudget(hit);
    }
    throw new AppError('unauthorized', message);
  };
  return async (req, res, next) => {
    // An address this process saw past its budget of refusals: 429 before any key is looked up, until its window ends.
    const spent = refusedAddresses.size ? refusedAddresses.refusalFor(clientAddress(req)) : null;
    if (spent) {
      setRateLimitHeaders(spent, (name, value) => res.setHeader(name, value));
      refuseOverBudget(spent);
    }
    const token = bearerToken(req.headers.authorization);
    if (!token) return refuse(req, res, 'Missing or malformed API key; send Authorization: Bearer <API key>');
    const authenticated = await authenticate(token, hitBudget, epochIn);
    if (!authenticated) return refuse(req, res, 'Invalid or revoked API key');
    const {
      key,
      alongside: { hit },
    } = authenticated;
    req.apiKey = key;
    recordUse(key.keyId);
    bindRequestLog(req, { workspaceId: key.workspaceId, apiKeyId: key.keyId });
    setRateLimitHeaders(hit, (name, value) => res.setHeader(name, value));
    refuseOverBudget(hit);
    next();
  };
}

/**
 * Whether a route is hidden from the request's key: a test helper
 * (`testModeOnly`) to any key but a test one. The route then answers as an
 * unknown route does (404 not_found), before its scope, its input or an
 * Idempotency-Key is looked at, so a live key learns nothing of it.
 */
export function routeHiddenFromKey(req: Request, auth: RouteAuth): boolean {
  return auth.kind === 'api_key' && auth.testModeOnly === true && req.apiKey?.mode !== 'test';
}

/** 403 insufficient_scope when the request's key lacks `scope`. */
export function assertScope(req: Request, scope: Scope): void {
  if (!req.apiKey?.scopes.includes(scope)) {
    throw new AppError('insufficient_scope', `This API key lacks the ${scope} scope`, { details: { required_scope: scope } });
  }
}

/**
 * For a 429 of a limit other than the request budget (a verification limit, an
 * endpoint's test pings): it carries no X-RateLimit-* headers, although the
 * budget middleware set them, since they describe a budget that did not refuse.
 */
export function dropRateLimitHeaders(res: Response): void {
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) res.removeHeader(name);
}

/** The API's 429 for a spent request budget: `details` = {limit, retry_after_seconds}, with Retry-After. */
function refuseOverBudget(hit: FixedWindowHit): void {
  if (hit.allowed) return;
  throw new AppError('rate_limited', 'Rate limit exceeded', {
    details: { limit: hit.limit, retry_after_seconds: hit.retryAfterSeconds },
    headers: { 'Retry-After': String(hit.retryAfterSeconds) },
  });
}

/**
 * What a session route asks of its user beyond a current session (its
 * SessionRule, from the route registry): a one-time password changed first
 * (unless `beforePasswordChange`), a second factor turned on first by an owner
 * or admin under REQUIRE_MFA_FOR_ADMINS (unless `beforeMfaEnrolment`), the
 * team role, and for a guarded change a sign-in or step-up within
 * STEP_UP_SECONDS.
 */
export function assertSessionMay(req: Request, rule: SessionRule): void {
  const session = req.session;
  if (!session) throw new AppError('unauthorized', 'Sign in required');
  if (session.passwordChangeRequired && !rule.beforePasswordChange) {
    throw new AppError('insufficient_scope', 'Choose a new password first (POST /auth/password): this session signed in with a one-time password', {
      details: { reason: 'password_change_required' },
    });
  }
  if (session.mfaEnrolmentRequired && !rule.beforeMfaEnrolment) {
    throw new AppError('insufficient_scope', 'Turn on two-step sign-in first (POST /auth/mfa/totp): owners and admins need a second factor', {
      details: { reason: 'mfa_enrolment_required' },
    });
  }
  if (rule.role === 'team_admin' && !managesTeam(session.role)) {
    throw new AppError('insufficient_scope', 'Only an owner or an admin of this workspace can do this; members can read', {
      details: { required_role: 'admin' },
    });
  }
  if (rule.role === 'owner' && session.role !== 'owner') {
    throw new AppError('insufficient_scope', 'Only an owner of this workspace can do this', { details: { required_role: 'owner' } });
  }
  if (rule.stepUp && !session.steppedUp) {
    const stepUpWith = session.mfaEnabled ? 'code' : 'password';
    throw new AppError(
      'insufficient_scope',
      `Confirm it is you first: send your ${stepUpWith === 'code' ? 'two-step code' : 'password'} to POST /auth/step-up, then this request again`,
      { details: { reason: 'step_up_required', step_up_with: stepUpWith } },
    );
  }
}

/** The request header with which a dashboard request chooses the data it manages: `live` (the default) or `test`. */
const MODE_HEADER = 'cowrie-mode';

function dashboardMode(header: string | string[] | undefined): Mode {
  if (header === undefined || header === 'live') return 'live';
  if (header === 'test') return 'test';
  throw new AppError('invalid_request', 'Cowrie-Mode must be live or test', { details: { field: 'Cowrie-Mode' } });
}

/**
 * Dashboard routes: a session JWT from /auth/login, still current (its user
 * not signed out, disabled or deleted since). API keys are refused. The
 * Cowrie-Mode header chooses live or test data (webhook endpoints, deliveries).
 * Each session has a request budget (DASHBOARD_RATE_LIMIT per 60 s, in Redis,
 * shared by all replicas), with the same headers and 429 as /v1's.
 */
export function requireSession(deps: Pick<GatewayDeps, 'config' | 'redis' | 'db'>): RequestHandler {
  const policy = { requireMfaForAdmins: deps.config.REQUIRE_MFA_FOR_ADMINS, stepUpSeconds: deps.config.STEP_UP_SECONDS };
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new AppError('unauthorized', 'Sign in required; send Authorization: Bearer <session token>');
    if (looksLikeApiKey(token)) throw new AppError('unauthorized', 'API keys cannot be used here; sign in to the dashboard');
    const session = await verifySessionToken(token, deps.config.JWT_SECRET);
    if (!session) throw new AppError('unauthorized', 'Invalid or expired session');
    const mode = dashboardMode(req.headers[MODE_HEADER]);
    // Signed out, disabled or deleted since the token was issued: refused from the next request on.
    const user = await currentSessionUser(deps.db, session, mode, policy);
    if (user === null) throw new AppError('unauthorized', 'This session has ended; sign in again');
    req.session = { ...session, ...user, businessId: session.workspaceId, mode };
    bindRequestLog(req, { workspaceId: user.workspaceId, userId: session.userId });
    const hit = await hitDashboardBudget(deps.redis, { keyPrefix: deps.config.REDIS_KEY_PREFIX, sessionToken: token, limit: deps.config.DASHBOARD_RATE_LIMIT });
    setRateLimitHeaders(hit, (name, value) => res.setHeader(name, value));
    refuseOverBudget(hit);
    next();
  };
}
