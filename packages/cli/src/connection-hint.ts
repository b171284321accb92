/**
 * The second line a failed `cowrie` command prints when the database or Redis
 * it needed could not be used: which variable names the server (its password
 * hidden) and the way out. The error's own message says only what failed
 * ("Database `cowrie` does not exist", "Reached the max retries per request
 * limit"), not where the CLI looked.
 */

/**
 * Errors that mean the database DATABASE_URL names cannot be used at all: it
 * does not exist, cannot be reached, or refuses the credentials. Prisma's
 * codes (P1000 authentication, P1001 unreachable, P1003 no such database,
 * P1010 access denied) and pg's (3D000 no such database, 28P01 and 28000
 * authentication, and the socket's own errors).
 */
const PRISMA_CODES = new Set(['P1000', 'P1001', 'P1003', 'P1010']);
const PG_CODES = new Set(['3D000', '28P01', '28000']);
/** A socket's own errors: Redis's connection can raise them too, so they count only for the database's port. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

function databasePort(databaseUrl: string): number | null {
  try {
    return Number(new URL(databaseUrl).port || 5432);
  } catch {
    return null;
  }
}

function isDatabaseError(err: unknown, databaseUrl: string): boolean {
  const { code, port } = (err ?? {}) as { code?: unknown; port?: unknown };
  if (typeof code !== 'string') return false;
  if (PRISMA_CODES.has(code) || PG_CODES.has(code)) return true;
  return SOCKET_CODES.has(code) && port === databasePort(databaseUrl);
}

/** A connection URL with its password, if any, replaced by `***`: a hint names the server, never the secret. */
export function displayUrl(connectionUrl: string, variable = 'DATABASE_URL'): string {
  try {
    const url = new URL(connectionUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return `(${variable} is not a URL)`;
  }
}

/**
 * The line a failed command adds when its error says the database itself
 * could not be used (the message alone, "Database `cowrie` does not exist",
 * names neither the variable nor the way out); null for any other error.
 */
export function databaseHint(err: unknown, databaseUrl: string): string | null {
  if (!isDatabaseError(err, databaseUrl)) return null;
  return `the database is DATABASE_URL=${displayUrl(databaseUrl)}: set DATABASE_URL to the service's database, or run \`npm start\` once to create and migrate it`;
}

/** The Redis settings a hint names: the ones `createRedis` connects by (a cluster's or Sentinel group's nodes before REDIS_URL). */
export interface RedisTarget {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES: string[];
  REDIS_SENTINELS: string[];
}

function redisSetting(target: RedisTarget): string {
  if (target.REDIS_CLUSTER_NODES.length > 0) return `REDIS_CLUSTER_NODES=${target.REDIS_CLUSTER_NODES.join(',')}`;
  if (target.REDIS_SENTINELS.length > 0) return `REDIS_SENTINELS=${target.REDIS_SENTINELS.join(',')}`;
  return `REDIS_URL=${displayUrl(target.REDIS_URL, 'REDIS_URL')}`;
}

/**
 * The line a failed command adds when its Redis connection failed while it
 * ran (`connectionError`, the last error the connection raised; ioredis then
 * fails the command with "Reached the max retries per request limit" or
 * "Connection is closed", which name neither the server nor the cause); null
 * when the connection raised nothing.
 */
export function redisHint(connectionError: Error | null, target: RedisTarget): string | null {
  if (!connectionError) return null;
  return `Redis did not answer at ${redisSetting(target)} (${connectionError.message}): start Redis, or set the variable to the service's Redis`;
}
