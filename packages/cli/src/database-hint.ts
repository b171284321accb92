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

/** DATABASE_URL with its password, if any, replaced by `***`: a hint names the database, never the secret. */
export function displayDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(DATABASE_URL is not a URL)';
  }
}

/**
 * The line a failed command adds when its error says the database itself
 * could not be used (the message alone, "Database `cowrie` does not exist",
 * names neither the variable nor the way out); null for any other error.
 */
export function databaseHint(err: unknown, databaseUrl: string): string | null {
  if (!isDatabaseError(err, databaseUrl)) return null;
  return `the database is DATABASE_URL=${displayDatabaseUrl(databaseUrl)}: set DATABASE_URL to the service's database, or run \`npm start\` once to create and migrate it`;
}
