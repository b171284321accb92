import type { Logger } from '@cowrie/core';

export interface PollingLoop {
  /** Runs a pass now (or right after the one in progress) instead of at the next poll. */
  wake(): void;
  /** Stops polling, aborts the signal of the pass in progress and waits for it to return. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `everyMs` in this process, never two passes at once; a
 * failed pass is logged and the next poll tries again. The work a loop drives
 * lives in Postgres, and the loop in the process: unlike a job scheduler kept
 * in Redis, nothing that Redis can lose stops it.
 */
export function startPollingLoop(opts: {
  name: string;
  everyMs: number;
  /** One pass; `signal` is aborted when the loop stops: a long pass (a slow rail asked many times) ends early, leaving the rest to the next process. */
  pass: (signal: AbortSignal) => Promise<unknown>;
  logger: Logger;
}): PollingLoop {
  const log = opts.logger.child({ loop: opts.name });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const stopping = new AbortController();

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
  };

  function tick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = opts
      .pass(stopping.signal)
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err }, `${opts.name} pass failed; retrying at the next poll`),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          schedule(0);
        } else {
          schedule(opts.everyMs);
        }
      });
  }

  schedule(0);
  return {
    wake: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort(new Error(`${opts.name} stopping`));
      await running;
    },
  };
}
