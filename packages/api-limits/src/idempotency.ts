import { IDEMPOTENCY_RETENTION_MS, sha256Hex } from '@cowrie/core';
import { Prisma, type DbOrTx } from '@cowrie/db';

/** Keys must be under 255 characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 254;
/**
 * An in-flight claim older than this belongs to a request that died (its
 * process was killed): a new request may take it over.
 */
export const IDEMPOTENCY_STALE_CLAIM_MS = 120_000;

/** JSON with object keys sorted at every depth. */
export function stableStringify(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

/**
 * SHA-256 of `METHOD:path:sorted-body`.
 * A key is the workspace's; `caller` (a dashboard user's id) makes the same
 * key and body from another caller a different request, so a reuse is a
 * conflict, never a replay of someone else's answer (a new key's secret).
 */
export function idempotencyRequestHash(method: string, path: string, body: unknown, caller?: string): string {
  const request = `${method.toUpperCase()}:${path}:${stableStringify(body ?? {})}`;
  return sha256Hex(caller === undefined ? request : `${caller}:${request}`);
}

/** `replay`'s `claimedAt` tells one stored answer from a later one under the same key (reclaimIdempotencyKey). */
export type ClaimOutcome =
  { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown; claimedAt: Date } | { kind: 'conflict' } | { kind: 'in_flight' };

interface KeyRef {
  workspaceId: number;
  key: string;
}

/**
 * Claims a key for one request. Exactly one of many concurrent callers gets
 * `claimed` (the unique constraint decides); the others see the stored
 * response, a conflict, or a request still in flight.
 */
export async function claimIdempotencyKey(db: DbOrTx, ref: KeyRef & { requestHash: string; now?: Date }): Promise<ClaimOutcome> {
  const now = ref.now ?? new Date();
  const where = { workspaceId_key: { workspaceId: ref.workspaceId, key: ref.key } };
  // An expired record is deleted and the request runs fresh.
  await db.idempotencyRecord.deleteMany({ where: { workspaceId: ref.workspaceId, key: ref.key, expiresAt: { lte: now } } });
  const inserted = await db.idempotencyRecord.createMany({
    data: [
      {
        workspaceId: ref.workspaceId,
        key: ref.key,
        requestHash: ref.requestHash,
        state: 'in_flight',
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
      },
    ],
    skipDuplicates: true,
  });
  if (inserted.count === 1) return { kind: 'claimed' };
  const row = await db.idempotencyRecord.findUnique({ where });
  if (!row) return claimIdempotencyKey(db, ref); // released between our insert and read
  if (row.requestHash !== ref.requestHash) return { kind: 'conflict' };
  if (row.state === 'completed') return { kind: 'replay', status: row.responseStatus ?? 200, body: row.responseBody, claimedAt: row.createdAt };
  if (now.getTime() - row.createdAt.getTime() > IDEMPOTENCY_STALE_CLAIM_MS) {
    const taken = await db.idempotencyRecord.updateMany({
      where: { id: row.id, state: 'in_flight', createdAt: row.createdAt },
      data: { createdAt: now },
    });
    if (taken.count === 1) return { kind: 'claimed' };
  }
  return { kind: 'in_flight' };
}

/** Stores a successful response for replay; retention runs from now. */
export async function completeIdempotencyKey(db: DbOrTx, ref: KeyRef & { status: number; body: unknown; now?: Date }): Promise<void> {
  const now = ref.now ?? new Date();
  await db.idempotencyRecord.updateMany({
    where: { workspaceId: ref.workspaceId, key: ref.key, state: 'in_flight' },
    data: {
      state: 'completed',
      responseStatus: ref.status,
      responseBody: (ref.body ?? Prisma.JsonNull) as Prisma.InputJsonValue,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    },
  });
}

/**
 * Takes back a stored answer that no longer stands (its payout failed since):
 * the record becomes this request's claim again, as a first request's would.
 * Only the answer replayed (`claimedAt`, from the replay outcome) is taken
 * back, never one stored after it; of many concurrent callers exactly one
 * gets true, and the others find the request in flight and wait for its
 * answer as for any other.
 */
export async function reclaimIdempotencyKey(db: DbOrTx, ref: KeyRef & { claimedAt: Date; now?: Date }): Promise<boolean> {
  const now = ref.now ?? new Date();
  const { count } = await db.idempotencyRecord.updateMany({
    where: { workspaceId: ref.workspaceId, key: ref.key, state: 'completed', createdAt: ref.claimedAt },
    data: {
      state: 'in_flight',
      responseStatus: null,
      responseBody: Prisma.DbNull,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    },
  });
  return count === 1;
}

/** Forgets a claim whose request did not succeed, so the client can retry it. */
export async function releaseIdempotencyKey(db: DbOrTx, ref: KeyRef): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { workspaceId: ref.workspaceId, key: ref.key, state: 'in_flight' } });
}

/**
 * Waits for an in-flight request with the same key to finish, then claims or
 * replays; gives up with `in_flight` after `waitMs`.
 */
export async function claimOrWaitIdempotencyKey(db: DbOrTx, ref: KeyRef & { requestHash: string; waitMs: number; pollMs?: number }): Promise<ClaimOutcome> {
  const deadline = Date.now() + ref.waitMs;
  for (;;) {
    const outcome = await claimIdempotencyKey(db, ref);
    if (outcome.kind !== 'in_flight' || Date.now() >= deadline) return outcome;
    await new Promise((r) => setTimeout(r, ref.pollMs ?? 50));
  }
}

/** Deletes records past retention; run periodically. */
export async function purgeExpiredIdempotencyRecords(db: DbOrTx, now = new Date()): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
