import type { RedisClient } from '@cowrie/core';
import type { EmittedEvent } from '@cowrie/events';
import {
  batchPerTurnFor,
  columnList,
  defineStatement,
  firstsThenRepeats,
  OUTBOX_EVENT_COLUMNS,
  pickColumns,
  sqlJsonRows,
  sqlList,
  sqlParam,
  type SqlQueryable,
  type VerificationModel,
} from '@cowrie/db';
import { codeMatches } from './code';
import { recordGuardedVerification, type FraudGuardConfig } from './fraud-guard';
import { isReference } from './schemas';
import { verificationColumns } from './verification-columns';
import { eventData } from './verification-reads';
import { deleteVoiceCode } from './voice-copy';

/** The event a check's statement records with its state change. */
type VerificationEvent = EmittedEvent<'verification.verified' | 'verification.failed' | 'verification.expired'>;

/** `data` of POST /v1/verifications/:reference/check. */
export type CheckOutcome =
  | { status: 'verified' }
  | { status: 'failed'; reason: 'invalid_code'; attempts_remaining: number }
  | { status: 'failed'; reason: 'expired' | 'not_found' | 'failed' | 'too_many_attempts' };

export interface CheckVerificationDeps {
  /** Plain pg (@cowrie/db `sql.ts`): a check is a read and one conditional statement. */
  sql: SqlQueryable;
  /** With keyPrefix: where a voice code's sealed copy is dropped once the row is terminal. */
  redis?: RedisClient;
  keyPrefix?: string;
  /** With redis: the fraud guard counts a check that verifies an sms or voice code toward its prefix. */
  fraudGuard?: { config: FraudGuardConfig; workspaceUid: string };
  /** Told once, when this check moved a row to verified (instrumentation). */
  onVerified?: (row: { channel: string; destination: string }) => void;
}

export interface CheckVerificationInput {
  workspaceId: number;
  reference: string;
  code: string;
  /** Default: now. */
  now?: Date;
}

/** What a state change returns of its row. */
const CHANGED_COLUMNS = pickColumns(verificationColumns, ['attempts', 'status', 'maxAttempts']);
type CheckedRow = Pick<VerificationModel, keyof typeof CHANGED_COLUMNS>;

/** The columns a check judges and its events name (not the metadata, delivery or audit columns). */
const CHECKED_COLUMNS = [
  'id',
  'reference',
  'workspaceId',
  'channel',
  'destination',
  'status',
  'codeHash',
  'codeSalt',
  'attempts',
  'maxAttempts',
  'expiresAt',
  'verifiedAt',
] as const;
const checkedColumns = pickColumns(verificationColumns, CHECKED_COLUMNS);
type CheckableRow = Pick<VerificationModel, (typeof CHECKED_COLUMNS)[number]>;

/**
 * One state change of a pending row as one statement, committed on its own:
 * the conditional UPDATE (by id, at `now`) decides, and the event row (its
 * payload's `attempts` taken from the updated row) is written only when it
 * changed the row to one of `emitOn`.
 */
function transitionStatement(name: string, set: string, emitOn: string[]) {
  return defineStatement({
    name,
    params: { id: sqlParam.int, now: sqlParam.timestamp, workspaceId: sqlParam.int, event: sqlParam.text, payload: sqlParam.json },
    text: (p) => `
    WITH next AS (
      UPDATE "Verification" SET ${set}, "updatedAt" = ${p.now}
      WHERE "id" = ${p.id} AND "status" = 'pending'
      RETURNING ${columnList(CHANGED_COLUMNS)}
    ), event AS (
      INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
      SELECT ${p.workspaceId}, ${p.event}, jsonb_set(${p.payload}::jsonb, '{attempts}', to_jsonb(next."attempts")), ${p.now} FROM next
      WHERE next."status" IN (${emitOn.map((s) => `'${s}'`).join(', ')})
    )
    SELECT ${columnList(CHANGED_COLUMNS)} FROM next`,
    result: CHANGED_COLUMNS,
  });
}

const EXPIRE = transitionStatement('cowrie-verification-expire', `"status" = 'expired'`, ['expired']);
const FAIL_EXHAUSTED = transitionStatement('cowrie-verification-fail-exhausted', `"status" = 'failed'`, ['failed']);

async function transition(sql: SqlQueryable, statement: typeof EXPIRE, row: CheckableRow, now: Date, event: VerificationEvent): Promise<CheckedRow | null> {
  const { rows } = await statement.run(sql, { id: row.id, now, workspaceId: row.workspaceId, event: event.name, payload: event.payload });
  return rows[0] ?? null;
}

/** A check's read: the row of `reference` if it belongs to `workspaceId`. */
interface RowLookup {
  workspaceId: number;
  reference: string;
}

/** A checked code's state change: accept (`accept`) or count a wrong guess, with the event it may bring. */
interface CodeTransition {
  row: CheckableRow;
  accept: boolean;
  now: Date;
  event: VerificationEvent;
}

/** A checked code's change, one row or many: which row, accepted or not, when, and the event it may bring. */
const CODE_CHANGE_FIELDS = {
  id: sqlParam.int,
  accept: sqlParam.boolean,
  now: sqlParam.timestamp,
  workspaceId: sqlParam.int,
  event: sqlParam.text,
  payload: sqlParam.json,
};

/** The SET of a checked code's change to row `v`: the attempt counted; accepted → verified, the last wrong one → failed. */
const codeChange = (accept: string, now: string) => `
      "attempts" = v."attempts" + 1,
      "status" = CASE WHEN ${accept} THEN 'verified' WHEN v."attempts" + 1 >= v."maxAttempts" THEN 'failed' ELSE 'pending' END,
      "verifiedAt" = CASE WHEN ${accept} THEN ${now} ELSE v."verifiedAt" END,
      "updatedAt" = ${now}`;

/** Whether row `v` still takes a code at `now`: pending, attempts left, not expired. */
const stillCheckable = (now: string) => `v."status" = 'pending' AND v."attempts" < v."maxAttempts" AND v."expiresAt" > ${now}`;

/** A change's parameters. */
const codeChangeParams = (c: CodeTransition) => ({
  id: c.row.id,
  accept: c.accept,
  now: c.now,
  workspaceId: c.row.workspaceId,
  event: c.event.name,
  payload: c.event.payload,
});

/**
 * Accept and count-wrong as one statement (the changes as one JSON array; a check alone
 * is a batch of one): the rows are locked in id order first, so two batches
 * touching the same rows queue instead of deadlocking; then, per row with its
 * own time and payload, the conditional UPDATE (still pending, attempts left,
 * not expired) counts the attempt and decides, and the event of a row that
 * became verified or failed is written with it. Every row is reached through
 * the primary key, however large the table.
 */
const CODE_TRANSITIONS = defineStatement({
  name: 'cowrie-verification-code-transitions',
  params: { changes: sqlJsonRows(CODE_CHANGE_FIELDS) },
  text: (p) => `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset(${p.changes}::jsonb) AS i("id" int, "accept" boolean, "now" timestamp(3), "workspaceId" int, "event" text, "payload" jsonb)
  ), locked AS MATERIALIZED (
    SELECT "id" FROM "Verification" WHERE "id" = ANY(ARRAY(SELECT "id" FROM input)) ORDER BY "id" FOR UPDATE
  ), next AS (
    UPDATE "Verification" v SET ${codeChange('i."accept"', 'i."now"')}
    FROM locked l JOIN input i ON i."id" = l."id"
    WHERE v."id" = l."id" AND ${stillCheckable('i."now"')}
    RETURNING v."id", v."attempts", v."status", v."maxAttempts", i."workspaceId", i."event", i."payload", i."now"
  ), event AS (
    INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
    SELECT "workspaceId", "event", jsonb_set("payload", '{attempts}', to_jsonb("attempts")), "now" FROM next
    WHERE "status" IN ('verified', 'failed')
  )
  SELECT "id", "attempts", "status", "maxAttempts" FROM next`,
  result: { id: verificationColumns.id, ...CHANGED_COLUMNS },
});

/**
 * CODE_TRANSITIONS for one check, the usual case (one check in a turn): the
 * same conditional UPDATE and event, the row's own UPDATE locking it, without
 * the batch's JSON input and its separate locking step.
 */
const CODE_TRANSITION = defineStatement({
  name: 'cowrie-verification-code-transition',
  params: CODE_CHANGE_FIELDS,
  text: (p) => `
  WITH next AS (
    UPDATE "Verification" v SET ${codeChange(`${p.accept}::boolean`, `${p.now}::timestamp(3)`)}
    WHERE v."id" = ${p.id} AND ${stillCheckable(`${p.now}::timestamp(3)`)}
    RETURNING v."id", v."attempts", v."status", v."maxAttempts"
  ), event AS (
    INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
    SELECT ${p.workspaceId}, ${p.event}, jsonb_set(${p.payload}::jsonb, '{attempts}', to_jsonb(next."attempts")), ${p.now}::timestamp(3) FROM next
    WHERE next."status" IN ('verified', 'failed')
  )
  SELECT "id", "attempts", "status", "maxAttempts" FROM next`,
  result: { id: verificationColumns.id, ...CHANGED_COLUMNS },
});

const FIND_ROWS = defineStatement({
  name: 'cowrie-find-verifications',
  params: { references: sqlList(sqlParam.uuid) },
  text: (p) => `SELECT ${columnList(checkedColumns)} FROM "Verification" WHERE "reference" = ANY(${p.references}::uuid[])`,
  result: checkedColumns,
});

/** FIND_ROWS for one check, the usual case: the reference as a parameter, not an array (one plan, kept per connection). */
const FIND_ROW = defineStatement({
  name: 'cowrie-find-verification',
  params: { reference: sqlParam.uuid },
  text: (p) => `SELECT ${columnList(checkedColumns)} FROM "Verification" WHERE "reference" = ${p.reference}::uuid`,
  result: checkedColumns,
});

// The checks that arrive together share their round trips: one read for all
// their rows, one statement for all their state changes. Each statement is
// sent after the checks it serves arrived, so they see what a check of its
// own would. A refused change statement runs again check by check.
const rowFinder = batchPerTurnFor(findRows);
const rowChanger = batchPerTurnFor(changeRows, { oneByOneWhenRefused: true });

async function findRows(sql: SqlQueryable, lookups: readonly RowLookup[]): Promise<Array<CheckableRow | null>> {
  const references = [...new Set(lookups.map((l) => l.reference))];
  const { rows } = references.length === 1 ? await FIND_ROW.run(sql, { reference: references[0]! }) : await FIND_ROWS.run(sql, { references });
  const byReference = new Map(rows.map((row) => [row.reference, row]));
  return lookups.map(({ workspaceId, reference }) => {
    const row = byReference.get(reference);
    return row && row.workspaceId === workspaceId ? row : null;
  });
}

/** CODE_TRANSITIONS for changes of distinct rows: each one's new state, or null when the row was no longer live. */
async function changeDistinctRows(sql: SqlQueryable, changes: readonly CodeTransition[]): Promise<Array<CheckedRow | null>> {
  if (changes.length === 1) {
    const [c] = changes as [CodeTransition];
    const { rows } = await CODE_TRANSITION.run(sql, codeChangeParams(c));
    const [next] = rows;
    return [next ? { attempts: next.attempts, status: next.status, maxAttempts: next.maxAttempts } : null];
  }
  const { rows } = await CODE_TRANSITIONS.run(sql, { changes: changes.map(codeChangeParams) });
  const byId = new Map(rows.map(({ id, ...next }) => [id, next]));
  return changes.map((c) => byId.get(c.row.id) ?? null);
}

/** One statement for the first change of each row; a second change of a row runs after it, on its own (firstsThenRepeats). */
function changeRows(sql: SqlQueryable, changes: readonly CodeTransition[]): Promise<Array<CheckedRow | null | Error>> {
  return firstsThenRepeats(
    changes,
    (c) => c.row.id,
    (distinct) => changeDistinctRows(sql, distinct),
  );
}

async function findRow(sql: SqlQueryable, workspaceId: number, reference: string): Promise<CheckableRow | null> {
  if (!isReference(reference)) return null;
  return rowFinder(sql).load({ workspaceId, reference: reference.toLowerCase() });
}

/**
 * Checks a code against a verification, following every row of the API's
 * check table (docs/verify-contacts.md: Check). Each state change is one conditional UPDATE
 * (`status = 'pending' AND attempts < maxAttempts AND expiresAt > now`) that
 * counts the attempt and decides the outcome at once, so concurrent checks
 * serialise on the row: two wrong guesses cannot both be the last one, and a
 * correct code is never accepted once attempts ran out or the code expired.
 * Each change writes its event in the same statement (transitionSql).
 */
export async function checkVerification(deps: CheckVerificationDeps, input: CheckVerificationInput): Promise<CheckOutcome> {
  const now = input.now ?? new Date();
  // A change we lost to a concurrent check is re-read and judged again; the
  // second read always sees a state this loop settles, the bound is a guard.
  for (let round = 0; round < 4; round += 1) {
    const row = await findRow(deps.sql, input.workspaceId, input.reference);
    if (!row) return { status: 'failed', reason: 'not_found' };
    const outcome = await judge(deps, row, input.code, now);
    if (outcome && outcome.status === 'verified' && row.status === 'pending') await countVerified(deps, row, now);
    if (outcome) {
      if (outcome.status === 'verified' || outcome.reason !== 'invalid_code' || outcome.attempts_remaining === 0) {
        await dropVoiceCopy(deps, row);
      }
      return outcome;
    }
  }
  return { status: 'failed', reason: 'failed' };
}

async function judge(deps: CheckVerificationDeps, row: CheckableRow, code: string, now: Date): Promise<CheckOutcome | null> {
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
async function acceptCode(sql: SqlQueryable, row: CheckableRow, now: Date): Promise<CheckOutcome | null> {
  const payload = eventData({ ...row, status: 'verified', verifiedAt: now });
  const next = await rowChanger(sql).load({ row, accept: true, now, event: { name: 'verification.verified', payload } });
  return next ? { status: 'verified' } : null;
}

/** A wrong code: one more attempt; the last allowed one moves the row to failed (event verification.failed). */
async function countWrongCode(sql: SqlQueryable, row: CheckableRow, now: Date): Promise<CheckOutcome | null> {
  const payload = eventData({ ...row, status: 'failed', verifiedAt: null }, 'invalid_code');
  const next = await rowChanger(sql).load({ row, accept: false, now, event: { name: 'verification.failed', payload } });
  if (!next) return null;
  return { status: 'failed', reason: 'invalid_code', attempts_remaining: Math.max(0, next.maxAttempts - next.attempts) };
}

/** pending past its TTL → expired, on the first check after it (GET never changes state). */
async function expire(sql: SqlQueryable, row: CheckableRow, now: Date): Promise<boolean> {
  const payload = eventData({ ...row, status: 'expired' });
  return (await transition(sql, EXPIRE, row, now, { name: 'verification.expired', payload })) !== null;
}

/**
 * The defensive row of the table: the counter already at the maximum but the
 * row still pending (not reachable through checkVerification, whose UPDATE
 * sets both at once; a row edited by hand or by an older version could be).
 */
async function failExhausted(sql: SqlQueryable, row: CheckableRow, now: Date): Promise<boolean> {
  const payload = eventData({ ...row, status: 'failed' }, 'too_many_attempts');
  return (await transition(sql, FAIL_EXHAUSTED, row, now, { name: 'verification.failed', payload })) !== null;
}

/** A check that turned a pending row verified: the fraud guard's conversion and the caller's count. */
async function countVerified(deps: CheckVerificationDeps, row: CheckableRow, now: Date) {
  deps.onVerified?.({ channel: row.channel, destination: row.destination });
  if (!deps.redis || !deps.fraudGuard) return;
  await recordGuardedVerification(deps.redis, deps.fraudGuard.config, {
    workspaceUid: deps.fraudGuard.workspaceUid,
    channel: row.channel,
    destination: row.destination,
    now: now.getTime(),
  }).catch(() => undefined);
}

async function dropVoiceCopy(deps: CheckVerificationDeps, row: CheckableRow) {
  if (row.channel !== 'voice' || !deps.redis || deps.keyPrefix === undefined) return;
  await deleteVoiceCode(deps.redis, { REDIS_KEY_PREFIX: deps.keyPrefix }, row.reference).catch(() => undefined);
}
