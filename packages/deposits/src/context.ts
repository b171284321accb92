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
  /** Timeout of one rail call; an opening claim older than two of them is taken over. Default 10000 ms. */
  railTimeoutMs?: number;
}

export const clockOf = (ctx: { now?: () => Date }) => ctx.now ?? (() => new Date());
