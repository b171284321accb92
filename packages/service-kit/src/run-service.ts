import type { Logger } from '@cowrie/core';
import { boundHeapGrowth } from './heap-growth';
import { stopTracing } from './tracing';
import { handleUnhandledRejections } from './unhandled-rejections';

export interface RunningService {
  stop: () => Promise<void>;
}

/**
 * Runs a service (its heap growth bounded) until SIGTERM or SIGINT, then stops it within `graceMs`
 * (exit 0), or exits 1 if stopping hangs. Start-up errors exit 1 with the
 * message (a bad configuration names the variable).
 */
export function runService(name: string, start: () => Promise<{ service: RunningService; logger: Logger; graceMs: number }>) {
  boundHeapGrowth();
  start()
    .then(({ service, logger, graceMs }) => {
      handleUnhandledRejections(logger);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, `${name} stopping`);
        setTimeout(() => {
          logger.error(`${name} did not stop within ${graceMs + 5000} ms`);
          process.exit(1);
        }, graceMs + 5000).unref();
        service.stop().then(
          // Buffered spans are sent before the exit (a no-op when tracing is off).
          () => stopTracing().then(() => process.exit(0)),
          (err) => {
            logger.error({ err: { message: (err as Error).message } }, `${name} stop failed`);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    })
    .catch((err) => {
      console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
