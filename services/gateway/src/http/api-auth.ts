import type { Request, RequestHandler } from 'express';
import { AppError, type Mode } from '@cowrie/core';
import {
  apiKeyUseRecorder,
  authenticateApiKey,
  findApiKeyRowWithSql,
  currentSessionWorkspace,
  looksLikeApiKey,
  verifySessionToken,
  type Scope,
} from '@cowrie/accounts';
import { hitDashboardBudget, hitPublicApiBudget, rateLimitHeaders, type FixedWindowHit } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import { bindRequestLog } from './request-context';

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** /v1: `Authorization: Bearer <API key>`; missing, malformed, unknown or revoked → 401. */
export function requireApiKey(deps: Pick<GatewayDeps, 'db' | 'sql' | 'logger'>): RequestHandler {
  const findKey = findApiKeyRowWithSql(deps.sql);
  const recordUse = apiKeyUseRecorder(deps.sql, (err) => deps.logger.warn({ err }, 'recording an API key last use failed'));
  return async (req, _res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new AppError('unauthorized', 'Missing or malformed API key; send Authorization: Bearer <API key>');
    const key = await authenticateApiKey(deps.db, token, findKey);
    if (!key) throw new AppError('unauthorized', 'Invalid or revoked API key');
    req.apiKey = key;
    recordUse(key.keyId);
    bindRequestLog(req, { workspaceId: key.workspaceId, apiKeyId: key.keyId });
    next();
  };
}

/** 403 insufficient_scope when the request's key lacks `scope`. */
export function assertScope(req: Request, scope: Scope): void {
  if (!req.apiKey?.scopes.includes(scope)) {
    throw new AppError('insufficient_scope', `This API key lacks the ${scope} scope`, { details: { required_scope: scope } });
  }
}

/**
 * The per-key request budget (fixed 60 s window in Redis, shared by all
 * replicas). Every /v1 response of an authenticated request carries the
 * X-RateLimit-* headers, the 429 included.
 */
export function publicApiRateLimit(deps: Pick<GatewayDeps, 'redis' | 'config'>): RequestHandler {
  return async (req, res, next) => {
    const hit = await hitPublicApiBudget(deps.redis, {
      keyPrefix: deps.config.REDIS_KEY_PREFIX,
      apiKeyLookupId: req.apiKey!.lookupId,
      limit: deps.config.PUBLIC_API_RATE_LIMIT,
    });
    res.set(rateLimitHeaders(hit));
    refuseOverBudget(hit);
    next();
  };
}

/** The interface's 429 for a spent budget: `details` = {limit, retry_after_seconds}, with Retry-After. */
export function refuseOverBudget(hit: FixedWindowHit): void {
  if (hit.allowed) return;
  throw new AppError('rate_limited', 'Rate limit exceeded', {
    details: { limit: hit.limit, retry_after_seconds: hit.retryAfterSeconds },
    headers: { 'Retry-After': String(hit.retryAfterSeconds) },
  });
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
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new AppError('unauthorized', 'Sign in required; send Authorization: Bearer <session token>');
    if (looksLikeApiKey(token)) throw new AppError('unauthorized', 'API keys cannot be used here; sign in to the dashboard');
    const session = await verifySessionToken(token, deps.config.JWT_SECRET);
    if (!session) throw new AppError('unauthorized', 'Invalid or expired session');
    const mode = dashboardMode(req.headers[MODE_HEADER]);
    // Signed out, disabled or deleted since the token was issued: refused from the next request on.
    const workspaceId = await currentSessionWorkspace(deps.db, session, mode);
    if (workspaceId === null) throw new AppError('unauthorized', 'This session has ended; sign in again');
    req.session = { ...session, workspaceId, mode };
    bindRequestLog(req, { workspaceId, userId: session.userId });
    const hit = await hitDashboardBudget(deps.redis, { keyPrefix: deps.config.REDIS_KEY_PREFIX, sessionToken: token, limit: deps.config.DASHBOARD_RATE_LIMIT });
    res.set(rateLimitHeaders(hit));
    refuseOverBudget(hit);
    next();
  };
}
