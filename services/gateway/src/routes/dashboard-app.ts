import fs from 'node:fs';
import path from 'node:path';
import express, { type Express } from 'express';
import type { Logger } from '@cowrie/core';
import { notFoundHandler } from '../http/error-handler';

/** Where the dashboard is served; its client routes live under it too. */
const DASHBOARD_PATH = '/dashboard';

/**
 * Everything the dashboard loads comes from this service: no inline script or
 * style, no other origin, and no page may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard's built files (apps/dashboard, `npm run build`): copied
 * beside the compiled gateway by its build (dist/dashboard/), or read from the
 * dashboard workspace's dist/ when running from sources.
 */
function dashboardDir(): string | undefined {
  const candidates = [
    path.join(__dirname, 'dashboard'),
    ...(require.resolve.paths('@cowrie/dashboard') ?? []).map((dir) => path.join(dir, '@cowrie/dashboard/dist')),
  ];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
}

/**
 * GET /dashboard: the dashboard's static files under a strict
 * Content-Security-Policy; any other path under it is a client route and gets
 * index.html. Hashed assets are cached for a year, index.html never.
 */
export function registerDashboardApp(app: Express, logger: Logger) {
  const dir = dashboardDir();
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set({
      'Content-Security-Policy': DASHBOARD_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    next();
  });
  if (!dir) {
    logger.warn('the dashboard is not built (npm run build): /dashboard answers 404');
    router.use(notFoundHandler);
    app.use(DASHBOARD_PATH, router);
    return;
  }
  const index = path.join(dir, 'index.html');
  router.use('/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }), notFoundHandler);
  // No redirect of /dashboard to /dashboard/: both are the app's home.
  router.use(express.static(dir, { index: false, maxAge: 0, redirect: false }));
  router.get('/{*clientRoute}', (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  app.use(DASHBOARD_PATH, router);
}
