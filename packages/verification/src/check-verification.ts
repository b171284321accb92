import type { TRedis } from '@cowrie/core';
import { utcTimestamp, type SqlQueryable, type VerificationModel } from '@cowrie/db';
import { codeMatches } from './code';
import { isReference } from './schemas';
import { eventData } from './views';
import { deleteVoiceCode } from './voice-copy';

/** `data` of POST /v1/verifications/:reference/check (interface: its table). */
export type TCheckOutcome =
  | { status: 'verified' }
  | { status: 'failed'; reason: 'invalid_code'; attempts_remaining: number }
  | { status: 'failed'; reason: 'expired' | 'not_found' | 'failed' | 'too_many_attempts' };

export interface CheckVerificationDeps {
  /** Plain pg (@cowrie/db `sql.ts`): a check is a read and one conditional statement. */
  sql: SqlQueryable;
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

type TCheckedRow = Pick<VerificationModel, 'attempts' | 'status' | 'maxAttempts'>;

/**
 * One state change of a pending row as one statement, committed on its own:
 * the conditional UPDATE (`$1` id, `$2` now) decides, and the event row
 * (`$3` workspace, `$4` name, `$5` payload, whose `attempts` is taken from the
 * updated row) is written only when it changed the row to one of `emitOn`.
 */
function transitionSql(set: string, condition: string, emitOn: string[]) {
  return `
    WITH next AS (
      UPDATE "Verification" SET ${set}, "updatedAt" = $2
      WHERE "id" = $1 AND "status" = 'pending' ${condition}
      RETURNING "attempts", "status", "maxAttempts"
    ), event AS (
      INSERT INTO "OutboxEvent" ("workspaceId", "event", "payload", "createdAt")
      SELECT $3, $4, jsonb_set($5::jsonb, '{attempts}', to_jsonb(next."attempts")), $2 FROM next
      WHERE next."status" IN (${emitOn.map((s) => `'${s}'`).join(', ')})
    )
    SELECT * FROM next`;
}

const LIVE = 'AND "attempts" < "maxAttempts" AND "expiresAt" > $2';
const ACCEPT = transitionSql(`"attempts" = "attempts" + 1, "status" = 'verified', "verifiedAt" = $2`, LIVE, ['verified']);
const COUNT_WRONG = transitionSql(`"attempts" = "attempts" + 1, "status" = CASE WHEN "attempts" + 1 >= "maxAttempts" THEN 'failed' ELSE 'pending' END`, LIVE, ['failed']);
const EXPIRE = transitionSql(`"status" = 'expired'`, '', ['expired']);
const FAIL_EXHAUSTED = transitionSql(`"status" = 'failed'`, '', ['failed']);

async function transition(
  sql: SqlQueryable,
  name: string,
  text: string,
  row: VerificationModel,
  now: Date,
  event: { name: string; payload: ReturnType<typeof eventData> },
): Promise<TCheckedRow | null> {
  const { rows } = await sql.query<TCheckedRow>({
    name,
    text,
    values: [row.id, utcTimestamp(now), row.workspaceId, event.name, JSON.stringify(event.payload)],
  });
  return rows[0] ?? null;
}

async function findRow(sql: SqlQueryable, workspaceId: number, reference: string): Promise<VerificationModel | null> {
  if (!isReference(reference)) return null;
  const { rows } = await sql.query<VerificationModel>({
    name: 'cowrie-find-verification',
    text: 'SELECT * FROM "Verification" WHERE "reference" = $1 AND "workspaceId" = $2',
    values: [reference.toLowerCase(), workspaceId],
  });
  return rows[0] ?? null;
}

/**
 * Checks a code against a verification, following every row of the
 * interface's check table. Each state change is one conditional UPDATE
 * (`status = 'pending' AND attempts < maxAttempts AND expiresAt > now`) that
 * counts the attempt and decides the outcome at once, so concurrent checks
 * serialise on the row: two wrong guesses cannot both be the last one, and a
 * correct code is never accepted once attempts ran out or the code expired.
 * Each change writes its event in the same statement (transitionSql).
 */
export async function checkVerification(deps: CheckVerificationDeps, input: CheckVerificationInput): Promise<TCheckOutcome> {
  const now = input.now ?? new Date();
  // A change we lost to a concurrent check is re-read and judged again; the
  // second read always sees a state this loop settles, the bound is a guard.
  for (let round = 0; round < 4; round += 1) {
    const row = await findRow(deps.sql, input.workspaceId, input.reference);
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
  if (now.getTime() >= row.expiresAt.getTime()) return (await expire(deps.sql, row, now)) ? { status: 'failed', reason: 'expired' } : null;
  if (row.attempts >= row.maxAttempts) {
    return (await failExhausted(deps.sql, row, now)) ? { status: 'failed', reason: 'too_many_attempts' } : null;
  }
  return codeMatches(code, row.codeSalt, row.codeHash) ? acceptCode(deps.sql, row, now) : countWrongCode(deps.sql, row, now);
}

/** pending → verified, counting the check; event verification.verified. */
async function acceptCode(sql: SqlQueryable, row: VerificationModel, now: Date): Promise<TCheckOutcome | null> {
  const payload = eventData({ ...row, status: 'verified', verifiedAt: now });
  const next = await transition(sql, 'cowrie-verification-accept', ACCEPT, row, now, { name: 'verification.verified', payload });
  return next ? { status: 'verified' } : null;
}

/** A wrong code: one more attempt; the last allowed one moves the row to failed (event verification.failed). */
async function countWrongCode(sql: SqlQueryable, row: VerificationModel, now: Date): Promise<TCheckOutcome | null> {
  const payload = eventData({ ...row, status: 'failed', verifiedAt: null }, 'invalid_code');
  const next = await transition(sql, 'cowrie-verification-wrong-code', COUNT_WRONG, row, now, { name: 'verification.failed', payload });
  if (!next) return null;
  return { status: 'failed', reason: 'invalid_code', attempts_remaining: Math.max(0, next.maxAttempts - next.attempts) };
}

/** pending past its TTL → expired, on the first check after it (GET never changes state). */
async function expire(sql: SqlQueryable, row: VerificationModel, now: Date): Promise<boolean> {
  const payload = eventData({ ...row, status: 'expired' });
  return (await transition(sql, 'cowrie-verification-expire', EXPIRE, row, now, { name: 'verification.expired', payload })) !== null;
}

/**
 * The defensive row of the table: the counter already at the maximum but the
 * row still pending (not reachable through checkVerification, whose UPDATE
 * sets both at once; a row edited by hand or by an older version could be).
 */
async function failExhausted(sql: SqlQueryable, row: VerificationModel, now: Date): Promise<boolean> {
  const payload = eventData({ ...row, status: 'failed' }, 'too_many_attempts');
  return (await transition(sql, 'cowrie-verification-fail-exhausted', FAIL_EXHAUSTED, row, now, { name: 'verification.failed', payload })) !== null;
}

async function dropVoiceCopy(deps: CheckVerificationDeps, row: VerificationModel) {
  if (row.channel !== 'voice' || !deps.redis || deps.keyPrefix === undefined) return;
  await deleteVoiceCode(deps.redis, deps.keyPrefix, row.reference).catch(() => undefined);
}
