import { decodePageCursor, newestFirst, pageLimit, pageOf, rowsAfter } from '@cowrie/core';
import type { DbOrTx, VerificationModel } from '@cowrie/db';
import type { VerificationChannel, VerificationStatus } from './channels';
import { maskDestination } from './destination';

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

export function toDashboardVerificationRecord(row: VerificationModel): DashboardVerificationRecord {
  return {
    ...toVerificationRecord(row),
    delivery_status: row.deliveryStatus,
    delivery_reported_at: row.deliveryReportedAt ? row.deliveryReportedAt.toISOString() : null,
  };
}

export function toStartedVerification(row: VerificationModel): StartedVerification {
  return {
    reference: row.reference,
    channel: row.channel,
    destination: maskDestination(row.destination),
    expiresAt: row.expiresAt.toISOString(),
    status: row.status,
  };
}

export function toVerificationRecord(row: VerificationModel): VerificationRecord {
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
  return pageOf(rows, limit, toDashboardVerificationRecord);
}
