import { loadConfig, createServiceLogger } from '@cowrie/core';
import { purgeExpiredIdempotencyRecords } from '@cowrie/api-limits';
import { createApp } from './app';
import { closeGatewayDeps, createGatewayDeps } from './deps';

async function main() {
  const config = loadConfig();
  const logger = createServiceLogger(config, 'gateway');
  const deps = createGatewayDeps(config, logger);
  const app = createApp(deps);
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info({ url: `http://${config.HOST}:${config.PORT}` }, 'gateway listening');
  });
  server.keepAliveTimeout = 65_000;

  // Idempotency records past their 24 hours are deleted (they are also ignored
  // on read, so a late sweep never replays an expired response).
  const sweep = setInterval(() => {
    purgeExpiredIdempotencyRecords(deps.db).catch((err) => logger.warn({ err }, 'idempotency sweep failed'));
  }, 10 * 60_000);
  sweep.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    clearInterval(sweep);
    const force = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS).unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // The server reports closed once its sockets are; handlers of requests whose
    // client hung up may still be awaiting Redis or Postgres. Let them finish.
    await new Promise((r) => setTimeout(r, 1000));
    await closeGatewayDeps(deps);
    clearTimeout(force);
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
