import { decodePageCursor, newestFirst, pageLimit, pageOf, rowsAfter, type Mode } from '@cowrie/core';
import { batchPerTurnFor, columnList, defineStatement, sqlColumn, sqlList, sqlParam, type DbOrTx, type SqlQueryable, type VerificationModel } from '@cowrie/db';
import type { VerificationChannel, VerificationStatus } from './channels';
import { maskDestination } from './destination';
import { isReference } from './schemas';
import { verificationColumns } from './verification-columns';

/** Response of POST /v1/verifications (the one camelCase key is the API's). */
export interface StartedVerification {
  reference: string;
  channel: string;
  destination: string;
  expiresAt: string;
  status: string;
}

/** The verification record of GET /v1/verifications/:reference. Metadata, code, hash and salt are never part of it. */
export interface VerificationRecord {
  reference: string;
  channel: string;
  destination: string;
  status: string;
  attempts: number;
  max_attempts: number;
  provider: string;
  expires_at: string | null;
  verified_at: string | null;
  created_at: string;
}

/**
 * The dashboard's view of a verification: the record and what the provider's
 * delivery report said (`delivered`, `undelivered`, or null without one) and
 * when. Not part of the /v1 record, whose fields are fixed.
 */
export interface DashboardVerificationRecord extends VerificationRecord {
  delivery_status: string | null;
  delivery_reported_at: string | null;
}

export function renderDashboardVerificationRecord(row: VerificationModel): DashboardVerificationRecord {
  return {
    ...renderVerificationRecord(row),
    delivery_status: row.deliveryStatus,
    delivery_reported_at: row.deliveryReportedAt ? row.deliveryReportedAt.toISOString() : null,
  };
}

export function renderStartedVerification(row: VerificationModel): StartedVerification {
  return {
    reference: row.reference,
    channel: row.channel,
    destination: maskDestination(row.destination),
    expiresAt: row.expiresAt.toISOString(),
    status: row.status,
  };
}

export function renderVerificationRecord(row: VerificationModel): VerificationRecord {
  return {
    reference: row.reference,
    channel: row.channel,
    destination: maskDestination(row.destination),
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.maxAttempts,
    provider: row.provider,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    verified_at: row.verifiedAt ? row.verifiedAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
  };
}

/** `data` of verification.verified / .failed / .expired. */
export function eventData(
  row: Pick<VerificationModel, 'reference' | 'channel' | 'destination' | 'status' | 'attempts' | 'verifiedAt'>,
  reason?: 'invalid_code' | 'too_many_attempts',
) {
  return {
    reference: row.reference,
    channel: row.channel,
    destination: maskDestination(row.destination),
    status: row.status,
    attempts: row.attempts,
    verified_at: row.verifiedAt ? row.verifiedAt.toISOString() : null,
    ...(reason ? { reason } : {}),
  };
}

export interface ListVerificationsInput {
  workspaceId: number;
  status?: VerificationStatus;
  channel?: VerificationChannel;
  /** Default 20, at most 100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/** A workspace's verifications, newest first, a page at a time: each as the dashboard shows it (masked, never a code). */
export async function listVerifications(db: DbOrTx, input: ListVerificationsInput) {
  const limit = pageLimit(input.limit);
  const rows = await db.verification.findMany({
    where: {
      workspaceId: input.workspaceId,
      ...(input.status ? { status: input.status } : {}),
      ...(input.channel ? { channel: input.channel } : {}),
      ...(input.cursor ? rowsAfter(decodePageCursor(input.cursor)) : {}),
    },
    orderBy: newestFirst(),
    take: limit + 1,
  });
  return pageOf(rows, limit, renderDashboardVerificationRecord);
}

const VERIFICATIONS_BY_ID = defineStatement({
  name: 'cowrie-verifications-by-id',
  params: { ids: sqlList(sqlParam.int) },
  text: (p) =>
    `SELECT ${columnList(verificationColumns, 'v')}, w."mode" AS "workspaceMode" FROM "Verification" v JOIN "Workspace" w ON w."id" = v."workspaceId" WHERE v."id" = ANY(${p.ids}::int[])`,
  result: { ...verificationColumns, workspaceMode: sqlColumn.text.as<Mode>() },
});

const verificationFinder = batchPerTurnFor(async (sql: SqlQueryable, ids: readonly number[]) => {
  const { rows } = await VERIFICATIONS_BY_ID.run(sql, { ids: [...new Set(ids)] });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? null);
});

/** A verification with the mode of its workspace. */
export type VerificationWithMode = VerificationModel & { workspaceMode: Mode };

/** A verification by its row id (the dispatcher's job names it so); the reads of one turn share one statement. */
export function findVerificationById(sql: SqlQueryable, id: number): Promise<VerificationWithMode | null> {
  return verificationFinder(sql).load(id);
}

/** A verification by its public reference, within one workspace only. */
export async function findVerification(db: DbOrTx, workspaceId: number, reference: string): Promise<VerificationModel | null> {
  if (!isReference(reference)) return null;
  return db.verification.findFirst({ where: { reference: reference.toLowerCase(), workspaceId } });
}
