import type { Queue } from 'bullmq';

// States in which a job will still run (or is running) without help.
const LIVE_STATES: ReadonlySet<string> = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/** Whether the job kept under `jobId` will still run (or is running) without help: waiting, delayed, prioritized, waiting on children, or active. */
export async function isJobLive(queue: Queue, jobId: string): Promise<boolean> {
  const job = await queue.getJob(jobId);
  return job ? LIVE_STATES.has(await job.getState()) : false;
}

export interface RequeueUnlessLiveOptions {
  /**
   * What happens to a failed job kept under the id. `'replace'` (the default):
   * it is removed and `add` runs, so the new job's attempts start from zero.
   * `'retry'`: it is moved back to waiting in place (BullMQ `retry`), keeping
   * its data and the attempts it made; only for a queue whose jobs get one
   * attempt, where a retried job has the same single attempt as a new one.
   */
  failed?: 'replace' | 'retry';
}

/** What `requeueUnlessLive` did: nothing (a live job exists), a failed job retried in place, or `add` ran. */
export type RequeueOutcome = 'live' | 'retried' | 'added';

/**
 * Queues a job again unless a live one (see `isJobLive`) exists under its id.
 * A finished or failed job kept under the id is removed first, since BullMQ
 * ignores an add whose id it holds; then `add` runs (it adds the job under
 * `jobId`, or collects it for one bulk add that the caller makes). A removal
 * that fails is ignored: the add is then a no-op.
 */
export async function requeueUnlessLive(queue: Queue, jobId: string, add: () => unknown, options: RequeueUnlessLiveOptions = {}): Promise<RequeueOutcome> {
  const old = await queue.getJob(jobId);
  if (old) {
    const state = await old.getState();
    if (LIVE_STATES.has(state)) return 'live';
    if (state === 'failed' && options.failed === 'retry') {
      await old.retry('failed');
      return 'retried';
    }
    await old.remove().catch(() => undefined);
  }
  await add();
  return 'added';
}
