import type { Logger } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import type { CollectionRail } from '@cowrie/collection-rails';

/** What the deposit and collection functions depend on; a test passes its own database, rail and clock. */
export interface DepositsContext {
  db: PrismaClient;
  rail: CollectionRail;
  logger?: Logger;
  /** The clock. Default `() => new Date()`. */
  now?: () => Date;
  /** Timeout of one rail call; the opening transaction is bounded by it. Default 10000 ms. */
  railTimeoutMs?: number;
}

export const clockOf = (ctx: { now?: () => Date }) => ctx.now ?? (() => new Date());

/**
 * Options of a transaction that calls the rail while it holds the opening lock:
 * long enough for two rail calls (customer + account), never unbounded.
 */
export function openingTransactionOptions(ctx: DepositsContext) {
  const rail = ctx.railTimeoutMs ?? 10_000;
  return { maxWait: 10_000, timeout: rail * 2 + 5_000 };
}

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}
