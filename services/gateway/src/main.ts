// First: tracing starts before what it instruments is loaded.
import './tracing';
import { loadConfig, createServiceLogger, railsByMode, warnConfigDeprecations } from '@cowrie/core';
import { purgeExpiredIdempotencyRecords } from '@cowrie/api-limits';
import { boundHeapGrowth, handleUnhandledRejections, stopTracing, tracingStarted } from '@cowrie/service-kit';
import { createApp } from './app';
import { closeGatewayDeps, createGatewayDeps } from './deps';
import { Lifecycle } from './http/lifecycle';

async function main() {
  boundHeapGrowth();
  const config = loadConfig();
  const logger = createServiceLogger(config, 'gateway');
  warnConfigDeprecations(logger);
  handleUnhandledRejections(logger);
  const deps = createGatewayDeps(config, logger, { processMetrics: true });
  const lifecycle = new Lifecycle();
  // Traced, /v1 goes through express's router, which the tracing's express instrumentation names spans by.
  const app = createApp(deps, { lifecycle, routeV1ThroughExpress: tracingStarted() });
  const server = app.listen(config.PORT, config.HOST, (err?: Error) => {
    // Express tells a listening error (the port taken, say) to this callback:
    // a gateway that cannot listen exits rather than run serving nothing.
    if (err) {
      logger.fatal({ err: { message: err.message }, port: config.PORT, host: config.HOST }, 'gateway could not listen');
      process.exit(1);
    }
    const url = `http://${config.HOST}:${config.PORT}`;
    logger.info({ url, dashboard: `${url}/dashboard`, rails: railsByMode(config) }, 'gateway listening');
  });
  server.keepAliveTimeout = 65_000;

  // Idempotency records past their 24 hours are deleted (they are also ignored
  // on read, so a late sweep never replays an expired response).
  const sweep = setInterval(() => {
    purgeExpiredIdempotencyRecords(deps.db).catch((err) => logger.warn({ err }, 'idempotency sweep failed'));
  }, 10 * 60_000);
  sweep.unref();

  /**
   * SIGTERM: drain, then close. During the drain the gateway still accepts
   * requests (a load balancer may not have noticed yet) but /readyz answers
   * 503 and every response says Connection: close. Then the listener closes,
   * idle keep-alive sockets are dropped, and every request already accepted
   * runs to its response before Postgres and Redis are let go.
   */
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    lifecycle.beginStopping();
    logger.info({ signal, drainMs: config.SHUTDOWN_DRAIN_MS, inFlight: lifecycle.requestsInFlight }, 'gateway stopping');
    clearInterval(sweep);
    const force = setTimeout(
      () => {
        logger.error({ inFlight: lifecycle.requestsInFlight }, 'gateway did not stop in time');
        process.exit(1);
      },
      config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_GRACE_MS + 5000,
    ).unref();
    await new Promise((r) => setTimeout(r, config.SHUTDOWN_DRAIN_MS));
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idle = await lifecycle.whenIdle(config.SHUTDOWN_GRACE_MS);
    if (!idle) logger.warn({ inFlight: lifecycle.requestsInFlight }, 'requests still running past SHUTDOWN_GRACE_MS; closing anyway');
    server.closeAllConnections();
    await closed;
    await closeGatewayDeps(deps);
    clearTimeout(force);
    logger.info('gateway stopped');
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  // A bad configuration names the variable; anything else is a start-up failure.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
