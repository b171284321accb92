import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { checkDashboardCredentials, endUserSessions, issueSessionToken } from '@cowrie/accounts';
import { hitFixedWindow, refundFixedWindow } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendData, sessionOf } from '../http/respond';

const ZLoginRequest = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(200),
});

// Ten failed tries per email per 15 minutes slows password guessing without
// locking out a person who mistypes a few times. Sign-ins that succeed do not
// count: every attempt takes a place first (so concurrent guesses cannot pass
// the limit), and a right password gives it back.
const LOGIN_ATTEMPTS = 10;
const LOGIN_WINDOW_SECONDS = 900;

const ZSession = z.object({ token: z.string().meta({ description: 'Send as Authorization: Bearer <token> to the dashboard routes' }), expires_in: z.number().int().meta({ description: 'Seconds' }) });

export function registerAuthRoutes(app: RouteMount, deps: GatewayDeps) {
  app.route(
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'login',
      summary: 'Sign in to the dashboard',
      tag: 'Dashboard',
      auth: { kind: 'none' },
      request: { body: ZLoginRequest },
      responses: {
        200: { description: 'A session token', data: ZSession },
        401: { description: 'unauthorized: email or password is incorrect' },
        429: { description: 'rate_limited: too many failed sign-in attempts for this email, or from this client address (AUTH_LOGIN_IP_FAILURE_LIMIT)' },
      },
    },
    async ({ body: { email, password } }, req, res) => {
      // Failures are counted per email and per client address (one address
      // guessing many emails): each attempt takes a place in both first, and a
      // right password gives them back.
      const counters = [
        { key: `${deps.config.REDIS_KEY_PREFIX}login:${email.toLowerCase()}`, windowSeconds: LOGIN_WINDOW_SECONDS, limit: LOGIN_ATTEMPTS },
        { key: `${deps.config.REDIS_KEY_PREFIX}login-ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, windowSeconds: LOGIN_WINDOW_SECONDS, limit: deps.config.AUTH_LOGIN_IP_FAILURE_LIMIT },
      ];
      const hits: Array<{ counter: (typeof counters)[number]; hit: Awaited<ReturnType<typeof hitFixedWindow>> }> = [];
      // A refund that fails leaves an attempt counted, which is all it costs.
      const refund = () =>
        Promise.all(hits.map(({ counter, hit }) => refundFixedWindow(deps.redis, { ...counter, hit }))).catch((err: Error) => req.log.warn({ err: { message: err.message } }, 'sign-in limit refund failed'));
      for (const counter of counters) {
        const hit = await hitFixedWindow(deps.redis, counter);
        if (!hit.allowed) {
          // The places taken in the counters before this one are given back; a full counter stays full.
          await refund();
          throw new AppError('rate_limited', 'Too many sign-in attempts; try again later', { details: { retry_after_seconds: hit.retryAfterSeconds } });
        }
        hits.push({ counter, hit });
      }
      const user = await checkDashboardCredentials(deps.db, email, password);
      if (!user) throw new AppError('unauthorized', 'Email or password is incorrect');
      await refund();
      const token = await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId, version: user.sessionVersion }, deps.config.JWT_SECRET, deps.config.JWT_TTL_SECONDS);
      sendData(req, res, 200, { token, expires_in: deps.config.JWT_TTL_SECONDS });
    },
  );

  app.route(
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'logout',
      summary: 'Sign out: end every session of the signed-in user',
      description: 'Every token issued to this user before now stops working at once, on every replica.',
      tag: 'Dashboard',
      auth: { kind: 'session' },
      responses: { 200: { description: 'Signed out', data: z.object({ signed_out: z.literal(true) }) } },
    },
    async (_input, req, res) => {
      await endUserSessions(deps.db, sessionOf(req).userId);
      sendData(req, res, 200, { signed_out: true });
    },
  );
}
