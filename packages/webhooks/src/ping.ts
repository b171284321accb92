import { enqueueAndWait, type JobChannel, type Mode } from '@cowrie/core';
import type { DbOrTx } from '@cowrie/db';
import { WEBHOOK_RETRY_DELAYS_MS } from './send-delivery';
import { createPingDelivery, readDeliveryOutcome } from './delivery-log';
import type { DispatchKey } from './delivery-bookkeeping';
import { webhooksQueue } from './queue';
import { deliveryJobId } from './relay';

// Beyond the attempts and their waits: the job's pickup and the outcome's write.
const PING_WAIT_MARGIN_MS = 2000;
// How often Postgres is read while the ping is being sent (the queue's completion event can be missed).
const PING_POLL_MS = 250;

/**
 * How long the dashboard's test action waits for its ping: every attempt of
 * the retry schedule at `timeoutMs` (WEBHOOK_TIMEOUT_MS) plus the waits
 * before them, and a margin.
 */
export function webhookPingWaitMs(timeoutMs: number): number {
  return WEBHOOK_RETRY_DELAYS_MS.length * timeoutMs + WEBHOOK_RETRY_DELAYS_MS.reduce<number>((a, b) => a + b, 0) + PING_WAIT_MARGIN_MS;
}

export interface TestPingDeps {
  db: DbOrTx;
  /** The webhooks queue and its events. */
  channel: JobChannel;
  /** WEBHOOK_TIMEOUT_MS: one attempt's bound, from which the wait follows (webhookPingWaitMs). */
  timeoutMs: number;
}

/**
 * What sending a ping found: its outcome as stored (`delivered`, `ok` false
 * when the receiver refused it), still being sent when the wait ended
 * (`pending`), its row gone with its endpoint (`endpoint_deleted`), or no job
 * at all because Redis refused the add (`not_queued`).
 */
export type TestPingOutcome =
  | { kind: 'delivered'; logId: number; ok: boolean; statusCode: number | null; attempts: number; error: string | null }
  | { kind: 'pending'; logId: number }
  | { kind: 'endpoint_deleted' }
  | { kind: 'not_queued'; error: Error };

/**
 * The dashboard's test action: a pending `ping` delivery to one of the
 * workspace's endpoints (not_found for anyone else's), sent by the
 * webhook-sender, and its outcome, waited for a bounded time.
 */
export async function sendTestPing(deps: TestPingDeps, input: { workspaceId: number; mode: Mode; endpointId: number }): Promise<TestPingOutcome> {
  const ping = await createPingDelivery(deps.db, input);
  const waitMs = webhookPingWaitMs(deps.timeoutMs);
  const run = enqueueAndWait(
    deps.channel,
    webhooksQueue,
    'webhook.deliver',
    { deliveryId: ping.deliveryId, dispatch: ping.dispatch },
    { jobId: deliveryJobId(ping), waitMs },
  );
  const outcome = await waitForOutcome(deps.db, ping, run, waitMs);
  const queued = await run;
  if (queued.kind === 'not_queued') return { kind: 'not_queued', error: queued.error };
  if (outcome === null) return { kind: 'endpoint_deleted' };
  const logId = Number(outcome.id);
  if (!outcome.completed) return { kind: 'pending', logId };
  return { kind: 'delivered', logId, ok: outcome.ok, statusCode: outcome.statusCode, attempts: outcome.attempts, error: outcome.error };
}

/**
 * Waits for the worker's outcome, bounded. The queue's completion event can be
 * missed, so Postgres (the source of truth) is also polled, and it is what the
 * answer is read from.
 */
async function waitForOutcome(db: DbOrTx, dispatch: DispatchKey, finished: Promise<unknown>, waitMs: number) {
  const deadline = Date.now() + waitMs;
  let done = false;
  const signal = finished.then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    const outcome = await readDeliveryOutcome(db, dispatch);
    if (!outcome || outcome.completed || done || Date.now() >= deadline) return outcome;
    await Promise.race([signal, new Promise((r) => setTimeout(r, PING_POLL_MS))]);
  }
}
