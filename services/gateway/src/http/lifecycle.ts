import type { Response } from 'express';

/**
 * The gateway's stop sequence state: how many requests are in flight, and
 * whether the process is draining (SIGTERM received). While draining, every
 * response carries `Connection: close` so keep-alive clients move to another
 * replica instead of racing the listener's close.
 */
export class Lifecycle {
  private inFlight = 0;
  private stopping = false;
  private idleWaiters: Array<() => void> = [];

  isStopping = () => this.stopping;

  beginStopping() {
    this.stopping = true;
  }

  get requestsInFlight() {
    return this.inFlight;
  }

  /**
   * Counts a response in flight until it closes (the app's first handler
   * calls it for every request). One 'close' listener shared by every
   * response (the response is its `this`), not a closure per request.
   */
  readonly track = (res: Response): void => {
    this.inFlight += 1;
    if (this.stopping) res.setHeader('Connection', 'close');
    res.on('close', this.onClose);
  };

  private readonly onClose = closeListener(() => this.done());

  /** Resolves true once no request is in flight, false if `timeoutMs` passes first. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private done() {
    this.inFlight -= 1;
    if (this.inFlight === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}

/** The 'close' listener of every tracked response: `done` once it finished, or a moment after a client hung up. */
function closeListener(done: () => void) {
  return function onClose(this: Response) {
    // A client that hung up leaves its handler running (it may still be
    // storing an idempotent outcome): give it a moment before counting it done.
    if (this.writableFinished) done();
    else setTimeout(done, 1000).unref();
  };
}
