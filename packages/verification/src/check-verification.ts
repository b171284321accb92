import type { TRedis } from '@cowrie/core';
import { recordEvent, type PrismaClient, type VerificationModel } from '@cowrie/db';
import { codeMatches } from './code';
import { findVerification } from './create-verification';
import { eventData } from './views';
import { deleteVoiceCode } from './voice-copy';

/** `data` of POST /v1/verifications/:reference/check (interface: its table). */
export type TCheckOutcome =
  | { status: 'verified' }
  | { status: 'failed'; reason: 'invalid_code'; attempts_remaining: number }
  | { status: 'failed'; reason: 'expired' | 'not_found' | 'failed' | 'too_many_attempts' };

export interface CheckVerificationDeps {
  db: PrismaClient;
  /** With keyPrefix: where a voice code's plaintext copy is dropped once the row is terminal. */
  redis?: TRedis;
  keyPrefix?: string;
}

export interface CheckVerificationInput {
  workspaceId: number;
  reference: string;
  code: string;
  /** Default: now. */
  now?: Date;
}

/** The SQL literal of an instant as Prisma stores it (UTC wall time in a timestamp(3) column). */
const ts = (d: Date) => d.toISOString();

interface UpdatedRow {
  attempts: number;
  status: string;
  verifiedAt: Date | null;
}

/**
 * Checks a code against a verification, following every row of the
 * interface's check table. Each state change is one conditional UPDATE
 * (`status = 'pending' AND attempts < maxAttempts AND expiresAt > now`) that
 * counts the attempt and decides the outcome at once, so concurrent checks
 * serialise on the row: two wrong guesses cannot both be the last one, and a
 * correct code is never accepted once attempts ran out or the code expired.
 * Each change writes its event in the same transaction.
 */
export async function checkVerification(deps: CheckVerificationDeps, input: CheckVerificationInput): Promise<TCheckOutcome> {
  const now = input.now ?? new Date();
  // A change we lost to a concurrent check is re-read and judged again; the
  // second read always sees a state this loop settles, the bound is a guard.
  for (let round = 0; round < 4; round += 1) {
    const row = await findVerification(deps.db, input.workspaceId, input.reference);
    if (!row) return { status: 'failed', reason: 'not_found' };
    const outcome = await judge(deps, row, input.code, now);
    if (outcome) {
      if (outcome.status === 'verified' || outcome.reason !== 'invalid_code' || outcome.attempts_remaining === 0) {
        await dropVoiceCopy(deps, row);
      }
      return outcome;
    }
  }
  return { status: 'failed', reason: 'failed' };
}

async function judge(deps: CheckVerificationDeps, row: VerificationModel, code: string, now: Date): Promise<TCheckOutcome | null> {
  switch (row.status) {
    case 'verified':
      // Safe to retry: any code answers verified again.
      return { status: 'verified' };
    case 'expired':
      return { status: 'failed', reason: 'expired' };
    case 'pending':
      break;
    default:
      return { status: 'failed', reason: 'failed' };
  }
  if (now.getTime() >= row.expiresAt.getTime()) return (await expire(deps.db, row, now)) ? { status: 'failed', reason: 'expired' } : null;
  if (row.attempts >= row.maxAttempts) {
    return (await failExhausted(deps.db, row, now)) ? { status: 'failed', reason: 'too_many_attempts' } : null;
  }
  return codeMatches(code, row.codeSalt, row.codeHash) ? acceptCode(deps.db, row, now) : countWrongCode(deps.db, row, now);
}

/** pending → verified, counting the check; event verification.verified. */
async function acceptCode(db: PrismaClient, row: VerificationModel, now: Date): Promise<TCheckOutcome | null> {
  return db.$transaction(async (tx) => {
    const updated = await tx.$queryRaw<UpdatedRow[]>`
      UPDATE "Verification"
         SET "attempts" = "attempts" + 1, "status" = 'verified', "verifiedAt" = ${ts(now)}::timestamp, "updatedAt" = ${ts(now)}::timestamp
       WHERE "id" = ${row.id} AND "status" = 'pending' AND "attempts" < "maxAttempts" AND "expiresAt" > ${ts(now)}::timestamp
   RETURNING "attempts", "status", "verifiedAt"`;
    const next = updated[0];
    if (!next) return null;
    await recordEvent(tx, { workspaceId: row.workspaceId, event: 'verification.verified', payload: eventData({ ...row, ...next }) });
    return { status: 'verified' } as const;
  });
}

/** A wrong code: one more attempt; the last allowed one moves the row to failed (event verification.failed). */
async function countWrongCode(db: PrismaClient, row: VerificationModel, now: Date): Promise<TCheckOutcome | null> {
  return db.$transaction(async (tx) => {
    const updated = await tx.$queryRaw<Array<UpdatedRow & { maxAttempts: number }>>`
      UPDATE "Verification"
         SET "attempts" = "attempts" + 1,
             "status" = CASE WHEN "attempts" + 1 >= "maxAttempts" THEN 'failed' ELSE 'pending' END,
             "updatedAt" = ${ts(now)}::timestamp
       WHERE "id" = ${row.id} AND "status" = 'pending' AND "attempts" < "maxAttempts" AND "expiresAt" > ${ts(now)}::timestamp
   RETURNING "attempts", "status", "verifiedAt", "maxAttempts"`;
    const next = updated[0];
    if (!next) return null;
    if (next.status === 'failed') {
      await recordEvent(tx, { workspaceId: row.workspaceId, event: 'verification.failed', payload: eventData({ ...row, ...next }, 'invalid_code') });
    }
    return { status: 'failed', reason: 'invalid_code', attempts_remaining: Math.max(0, next.maxAttempts - next.attempts) } as const;
  });
}

/** pending past its TTL → expired, on the first check after it (GET never changes state). */
async function expire(db: PrismaClient, row: VerificationModel, now: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.verification.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'expired', updatedAt: now } });
    if (count !== 1) return false;
    await recordEvent(tx, { workspaceId: row.workspaceId, event: 'verification.expired', payload: eventData({ ...row, status: 'expired' }) });
    return true;
  });
}

/**
 * The defensive row of the table: the counter already at the maximum but the
 * row still pending (not reachable through checkVerification, whose UPDATE
 * sets both at once; a row edited by hand or by an older version could be).
 */
async function failExhausted(db: PrismaClient, row: VerificationModel, now: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.verification.updateMany({ where: { id: row.id, status: 'pending' }, data: { status: 'failed', updatedAt: now } });
    if (count !== 1) return false;
    await recordEvent(tx, { workspaceId: row.workspaceId, event: 'verification.failed', payload: eventData({ ...row, status: 'failed' }, 'too_many_attempts') });
    return true;
  });
}

async function dropVoiceCopy(deps: CheckVerificationDeps, row: VerificationModel) {
  if (row.channel !== 'voice' || !deps.redis || deps.keyPrefix === undefined) return;
  await deleteVoiceCode(deps.redis, deps.keyPrefix, row.reference).catch(() => undefined);
}
