import { AppError } from '@cowrie/core';
import type { DbOrTx } from '@cowrie/db';
import { findVerification } from './verification-reads';
import { readSandboxMessages, type SandboxOutbox } from './providers/sandbox';

/** The answer of the code test helper. */
export interface SandboxCode {
  reference: string;
  code: string;
  /** When the sandbox "sent" it. */
  sent_at: string;
}

/**
 * The code test helper: the code the sandbox provider sent for one of the
 * workspace's test verifications, read from the sandbox's outbox (its last
 * message for that reference), never from the row (which holds only a hash).
 * 404 when the workspace has no such verification, or the sandbox sent it no
 * code: its delivery failed or is still queued, or the message is past the
 * sandbox's retention (VERIFY_SANDBOX_RETENTION_SECONDS). Only the test side's
 * messages are read.
 */
export async function readSandboxCode(deps: { db: DbOrTx; outbox: SandboxOutbox }, input: { workspaceId: number; reference: string }): Promise<SandboxCode> {
  const verification = await findVerification(deps.db, input.workspaceId, input.reference);
  if (!verification) throw new AppError('not_found', 'Verification not found');
  const messages = await readSandboxMessages(deps.outbox, verification.destination, 'test');
  // Newest first: a code sent again for the same reference is the one that counts.
  const sent = messages.find((m) => m.reference === verification.reference);
  if (!sent) {
    throw new AppError('not_found', 'The sandbox has sent no code for this verification (its delivery failed or has not happened yet)', {
      details: { reference: verification.reference, status: verification.status },
    });
  }
  return { reference: verification.reference, code: sent.code, sent_at: sent.sent_at };
}
