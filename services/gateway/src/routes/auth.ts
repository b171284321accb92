import type { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { checkDashboardCredentials, issueSessionToken } from '@cowrie/accounts';
import { hitFixedWindow } from '@cowrie/api-limits';
import type { GatewayDeps } from '../deps';
import { parseBody } from '../http/validate';
import { sendData } from '../http/respond';

const ZLoginRequest = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(200),
});

// Ten tries per email per 15 minutes slows password guessing without locking
// out a person who mistypes a few times.
const LOGIN_ATTEMPTS = 10;
const LOGIN_WINDOW_SECONDS = 900;

export function registerAuthRoutes(app: Router, deps: GatewayDeps) {
  app.post('/auth/login', async (req, res) => {
    const { email, password } = parseBody(ZLoginRequest, req);
    const hit = await hitFixedWindow(deps.redis, {
      key: `${deps.config.REDIS_KEY_PREFIX}login:${email.toLowerCase()}`,
      limit: LOGIN_ATTEMPTS,
      windowSeconds: LOGIN_WINDOW_SECONDS,
    });
    if (!hit.allowed) {
      throw new AppError('rate_limited', 'Too many sign-in attempts; try again later', {
        details: { retry_after_seconds: hit.retryAfterSeconds },
      });
    }
    const user = await checkDashboardCredentials(deps.db, email, password);
    if (!user) throw new AppError('unauthorized', 'Email or password is incorrect');
    const token = await issueSessionToken({ userId: user.id, workspaceId: user.workspaceId }, deps.config.JWT_SECRET, deps.config.JWT_TTL_SECONDS);
    sendData(req, res, 200, { token, expires_in: deps.config.JWT_TTL_SECONDS });
  });
}
