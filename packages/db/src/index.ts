import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { listenForHeldConnectionErrors } from './sql';
import { PrismaClient, Prisma } from './generated/client';

export { PrismaClient, Prisma };
export type * from './generated/client';
export type * from './generated/models';

/** The client or an interactive transaction: domain functions accept either. */
export type DbOrTx = PrismaClient | Prisma.TransactionClient;

export interface CreateDbOptions {
  databaseUrl: string;
  /** Connections in this process's pool. Default 10. */
  poolSize?: number;
}

/**
 * Prisma through @prisma/adapter-pg: no native query engine. Its pool is made
 * here (and ended with the client) so that its connections get the same
 * lifelong 'error' listener as the plain-pg pool's (listenForHeldConnectionErrors).
 */
export function createDb({ databaseUrl, poolSize = 10 }: CreateDbOptions): PrismaClient {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  listenForHeldConnectionErrors(pool);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  return new PrismaClient({ adapter });
}

export * from './insensitive-match';
export * from './outbox';
export * from './sql';
export * from './statement';
export * from './reseal';
