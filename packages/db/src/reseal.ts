import { decryptSecret, encryptSecret, sealedUnder } from '@cowrie/core';
import type { PrismaClient } from './generated/client';

/**
 * Every value Postgres keeps sealed with ENCRYPTION_KEY (AES-256-GCM). Redis
 * holds others (a code in a verification job, a voice copy, the sandbox
 * outbox), but only until their code expires: those need no reseal.
 */
export const SEALED_COLUMNS = [
  'WebhookEndpoint.secretEncrypted',
  'WebhookEndpoint.previousSecretEncrypted',
  'DashboardUser.totpSecretSealed',
  'IdempotencyRecord.responseBody',
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export interface ResealCounts {
  /** Sealed under the previous key, now under the current one. */
  resealed: number;
  /** Already under the current key (resealed before, or written since): left alone. */
  current: number;
  /** Opened by no key given: left alone (the previous key must not be dropped while any remain). */
  unreadable: number;
  /** Changed by someone else between the read and the write (a new value is sealed under the current key): left alone. */
  changed: number;
}

export interface ResealOptions {
  /** ENCRYPTION_KEY; its previous key (ENCRYPTION_KEY_PREVIOUS) is known through loadConfig. */
  encryptionKey: string;
  /** Rows read per query. Default 200. */
  batchSize?: number;
}

/** One sealed column: its rows after an id, with the sealed text, and a conditional write of a new sealed text. */
interface ColumnAccess<Id> {
  page: (after: Id | undefined, take: number) => Promise<Array<{ id: Id; sealed: string }>>;
  /** Writes `next` if the row still holds `previous`; whether it did. */
  swap: (id: Id, previous: string, next: string) => Promise<boolean>;
}

/** A column's access, its id type forgotten (ids only travel from its own page to its own swap). */
const access = <Id extends number | bigint>(columnAccess: ColumnAccess<Id>) => columnAccess as unknown as ColumnAccess<number | bigint>;

function columnAccess(db: PrismaClient, column: SealedColumn): ColumnAccess<number | bigint> {
  switch (column) {
    case 'WebhookEndpoint.secretEncrypted':
      return access<number>({
        page: async (after, take) =>
          (
            await db.webhookEndpoint.findMany({
              where: after === undefined ? {} : { id: { gt: after } },
              orderBy: { id: 'asc' },
              take,
              select: { id: true, secretEncrypted: true },
            })
          ).map((r) => ({ id: r.id, sealed: r.secretEncrypted })),
        swap: async (id, previous, next) =>
          (await db.webhookEndpoint.updateMany({ where: { id, secretEncrypted: previous }, data: { secretEncrypted: next } })).count === 1,
      });
    case 'WebhookEndpoint.previousSecretEncrypted':
      return access<number>({
        page: async (after, take) =>
          (
            await db.webhookEndpoint.findMany({
              where: { previousSecretEncrypted: { not: null }, ...(after === undefined ? {} : { id: { gt: after } }) },
              orderBy: { id: 'asc' },
              take,
              select: { id: true, previousSecretEncrypted: true },
            })
          ).map((r) => ({ id: r.id, sealed: r.previousSecretEncrypted! })),
        swap: async (id, previous, next) =>
          (await db.webhookEndpoint.updateMany({ where: { id, previousSecretEncrypted: previous }, data: { previousSecretEncrypted: next } })).count === 1,
      });
    case 'DashboardUser.totpSecretSealed':
      return access<number>({
        page: async (after, take) =>
          (
            await db.dashboardUser.findMany({
              where: { totpSecretSealed: { not: null }, ...(after === undefined ? {} : { id: { gt: after } }) },
              orderBy: { id: 'asc' },
              take,
              select: { id: true, totpSecretSealed: true },
            })
          ).map((r) => ({ id: r.id, sealed: r.totpSecretSealed! })),
        swap: async (id, previous, next) =>
          (await db.dashboardUser.updateMany({ where: { id, totpSecretSealed: previous }, data: { totpSecretSealed: next } })).count === 1,
      });
    case 'IdempotencyRecord.responseBody':
      // Only answers that may carry a secret are sealed: stored as {"sealed": "v1.…"}.
      return access<bigint>({
        page: async (after, take) =>
          (
            await db.idempotencyRecord.findMany({
              where: { responseBody: { path: ['sealed'], string_starts_with: 'v1.' }, ...(after === undefined ? {} : { id: { gt: after } }) },
              orderBy: { id: 'asc' },
              take,
              select: { id: true, responseBody: true },
            })
          ).map((r) => ({ id: r.id, sealed: (r.responseBody as { sealed: string }).sealed })),
        swap: async (id, previous, next) =>
          (await db.idempotencyRecord.updateMany({ where: { id, responseBody: { equals: { sealed: previous } } }, data: { responseBody: { sealed: next } } }))
            .count === 1,
      });
  }
}

/**
 * Re-encrypts every sealed value in Postgres under the current ENCRYPTION_KEY
 * (`cowrie secrets reseal`), after a rotation: what ENCRYPTION_KEY_PREVIOUS
 * sealed is opened and sealed again; anything else is counted and left alone.
 * Each row is its own conditional write (only if it still holds what was
 * read), so a run can be stopped at any point and run again: what it already
 * did counts as `current`. Once `unreadable` is 0 and every service runs the
 * new key, the previous key can be dropped.
 */
export async function resealSecrets(db: PrismaClient, opts: ResealOptions): Promise<Record<SealedColumn, ResealCounts>> {
  const take = opts.batchSize ?? 200;
  const report = {} as Record<SealedColumn, ResealCounts>;
  for (const column of SEALED_COLUMNS) {
    const counts: ResealCounts = { resealed: 0, current: 0, unreadable: 0, changed: 0 };
    const sealed = columnAccess(db, column);
    let after: number | bigint | undefined;
    for (;;) {
      const rows = await sealed.page(after, take);
      for (const row of rows) {
        const under = sealedUnder(row.sealed, opts.encryptionKey);
        if (under === 'current') counts.current++;
        else if (under === 'none') counts.unreadable++;
        else if (await sealed.swap(row.id, row.sealed, encryptSecret(decryptSecret(row.sealed, opts.encryptionKey), opts.encryptionKey))) counts.resealed++;
        else counts.changed++;
      }
      if (rows.length < take) break;
      after = rows[rows.length - 1]!.id;
    }
    report[column] = counts;
  }
  return report;
}
