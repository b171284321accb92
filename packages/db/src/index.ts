import { PrismaPg } from '@prisma/adapter-pg';
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

/** Prisma through @prisma/adapter-pg: no native query engine. */
export function createDb({ databaseUrl, poolSize = 10 }: CreateDbOptions): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolSize });
  return new PrismaClient({ adapter });
}

export * from './insensitive-match';
export * from './outbox';
export * from './sql';
export * from './statement';
export * from './reseal';
