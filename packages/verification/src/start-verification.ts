import { enqueueAndWait, type Config, type JobChannel, type Logger } from '@cowrie/core';
import type { SqlQueryable, VerificationModel } from '@cowrie/db';
import { createVerification, markDeliveryFailed, type CreateVerificationInput } from './create-verification';
import { findVerificationById } from './verification-reads';
import { verificationJobId, verificationsQueue } from './queue';

export interface StartVerificationDeps {
  /** Plain pg: the insert and the reads after the wait. */
  sql: SqlQueryable;
  config: Parameters<typeof createVerification>[1] & Pick<Config, 'VERIFY_SYNC_WAIT_MS'>;
  /** The verifications queue and its events. */
  channel: JobChannel;
  /** The request's logger. */
  log: Logger;
}

/**
 * What starting a verification found: the code sent, or still being sent when
 * the wait ended (`started`, with the row to answer from); the delivery
 * refused or its job failed (`delivery_failed`, the row failed with its
 * reason); or no job at all because the queue refused it (`not_queued`, the
 * row failed too).
 */
export type StartVerificationOutcome =
  | { kind: 'started'; verification: VerificationModel }
  | { kind: 'delivery_failed'; reference: string; error: string }
  | { kind: 'not_queued'; reference: string };

/**
 * Creates the verification, queues its delivery and waits up to
 * VERIFY_SYNC_WAIT_MS for the dispatcher's outcome (docs/design.md:
 * synchronous answers). Sent: the row is still as created. Anything else: the
 * row in Postgres is the answer.
 */
export async function startVerification(deps: StartVerificationDeps, input: CreateVerificationInput): Promise<StartVerificationOutcome> {
  const { config, log } = deps;
  const { verification, sealedCode } = await createVerification(deps.sql, config, input);
  const reference = verification.reference;
  log.info({ reference, channel: verification.channel }, 'verification started');

  const run = await enqueueAndWait(
    deps.channel,
    verificationsQueue,
    'verification.deliver',
    { verificationId: verification.id, sealedCode },
    { jobId: verificationJobId(verification), waitMs: config.VERIFY_SYNC_WAIT_MS },
  );
  if (run.kind === 'not_queued') {
    log.error({ err: { message: run.error.message }, reference }, 'could not queue code delivery');
    await markDeliveryFailed(deps.sql, verification.id, 'the delivery queue is unavailable');
    return { kind: 'not_queued', reference };
  }
  const delivery = run.kind === 'completed' ? run.value : undefined;
  if (run.kind !== 'completed' && config.VERIFY_SYNC_WAIT_MS > 0) {
    const state = run.kind === 'failed' ? 'failed' : await run.job.getState().catch(() => 'unknown');
    if (state === 'failed') {
      // The handler itself crashed (not a provider refusal, which it records):
      // the code was not delivered and the job is not retried.
      log.warn({ reference, err: { message: run.kind === 'failed' ? run.reason : 'failed' } }, 'code delivery job failed');
      await markDeliveryFailed(deps.sql, verification.id, 'the delivery worker failed');
    } else {
      log.warn({ reference, state }, 'code delivery still running; answering from the row');
    }
  }

  const row = delivery?.kind === 'sent' ? verification : ((await findVerificationById(deps.sql, verification.id)) ?? verification);
  if (row.status === 'failed' && row.deliveryError) return { kind: 'delivery_failed', reference, error: row.deliveryError };
  return { kind: 'started', verification: row };
}
