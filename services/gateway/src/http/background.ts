import type { Logger } from '@cowrie/core';

/**
 * Work a route starts after it has answered (the email of a password reset,
 * whose sending must not show in the answer's timing). Each task's failure is
 * logged, never thrown; closing the gateway waits for the tasks running.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(task: string, work: () => Promise<void>): void {
    const done: Promise<void> = work()
      .catch((err: Error) => this.logger.error({ err: { name: err.name, message: err.message }, task }, 'background task failed'))
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Resolves once every task started so far has finished (or `timeoutMs` passed). */
  async idle(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.running]), timeout]);
    clearTimeout(timer);
  }
}
