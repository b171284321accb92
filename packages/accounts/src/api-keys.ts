import { randomBytes } from 'node:crypto';
import { constantTimeEqual, sha256Hex, type Mode } from '@cowrie/core';
import {
  batchPerTurn,
  columnList,
  defineStatement,
  modelColumns,
  sqlColumn,
  sqlList,
  sqlParam,
  type ApiKey,
  type DbOrTx,
  type SqlQueryable,
  type Workspace,
} from '@cowrie/db';
import { parseScopes, type Scope } from './scopes';
import { workspaceForMode } from './workspaces';

/** `ck_<mode>_<16 hex lookup id>_<43 base64url secret>` */
const KEY_PATTERN = /^ck_(live|test)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface CreateApiKeyInput {
  /** The business's (live) workspace; a test key is kept on its test side. */
  workspaceId: number;
  scopes: string | readonly string[];
  mode?: Mode;
}

/** Creates a key; the plaintext is returned this once and only its hash is stored. */
export async function createApiKey(db: DbOrTx, { workspaceId, scopes, mode = 'live' }: CreateApiKeyInput) {
  const parsedScopes = parseScopes(scopes);
  const keptOn = await workspaceForMode(db, workspaceId, mode);
  const lookupId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const row = await db.apiKey.create({
    data: { workspaceId: keptOn, lookupId, secretHash: sha256Hex(secret), mode, scopes: parsedScopes },
  });
  return { id: row.id, key: `ck_${mode}_${lookupId}_${secret}`, scopes: parsedScopes, workspace_id: workspaceId, mode };
}

export async function revokeApiKey(db: DbOrTx, id: number) {
  const found = await db.apiKey.findUnique({ where: { id }, select: { id: true, revokedAt: true } });
  if (!found) throw new Error(`API key ${id} does not exist`);
  if (!found.revokedAt) await db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  return { id, revoked: true as const };
}

export interface AuthenticatedKey {
  keyId: number;
  /** The key's random public id (the part of the key after the mode). */
  lookupId: string;
  workspaceId: number;
  /** The workspace's id that never repeats, even on another database (workspaceUid). */
  workspaceUid: string;
  scopes: Scope[];
  mode: Mode;
}

/**
 * A workspace's id plus its creation time (ms, base 36): unlike the row id,
 * which starts again on a new database, it never names two workspaces. State
 * kept outside Postgres under a workspace (Redis counters) is keyed by it, so
 * a new database on an old Redis never inherits another's counts.
 */
export const workspaceUid = (workspaceId: number, createdAt: Date) => `${workspaceId}-${createdAt.getTime().toString(36)}`;

export const looksLikeApiKey = (token: string) => token.startsWith('ck_');

/** The columns authentication reads of one key row. */
export interface ApiKeyRow {
  id: number;
  workspaceId: number;
  workspaceCreatedAt: Date;
  secretHash: string;
  scopes: string[];
  mode: string;
  revokedAt: Date | null;
}

/** How a key row is looked up by its lookup id: Prisma by default, or a faster path. */
export type FindApiKeyRow = (lookupId: string) => Promise<ApiKeyRow | null>;

export const findApiKeyRowWithPrisma =
  (db: DbOrTx): FindApiKeyRow =>
  (lookupId) =>
    db.apiKey
      .findUnique({
        where: { lookupId },
        select: { id: true, workspaceId: true, secretHash: true, scopes: true, mode: true, revokedAt: true, workspace: { select: { createdAt: true } } },
      })
      .then((row) => {
        if (!row) return null;
        const { workspace, ...key } = row;
        return { ...key, workspaceCreatedAt: workspace.createdAt };
      });

const KEY_COLUMNS = modelColumns<ApiKey>()('ApiKey', {
  id: sqlColumn.int,
  workspaceId: sqlColumn.int,
  secretHash: sqlColumn.text,
  scopes: sqlColumn.textList,
  mode: sqlColumn.text,
  revokedAt: sqlColumn.timestamp.orNull,
  lookupId: sqlColumn.text,
});
const KEY_WORKSPACE_COLUMNS = { workspaceCreatedAt: modelColumns<Workspace>()('Workspace', { createdAt: sqlColumn.timestamp }).createdAt };

const FIND_API_KEYS = defineStatement({
  name: 'cowrie-find-api-keys',
  params: { lookupIds: sqlList(sqlParam.text) },
  text: (p) => `SELECT ${columnList(KEY_COLUMNS, 'k')}, ${columnList(KEY_WORKSPACE_COLUMNS, 'w')}
        FROM "ApiKey" k JOIN "Workspace" w ON w."id" = k."workspaceId" WHERE k."lookupId" = ANY(${p.lookupIds}::text[])`,
  result: { ...KEY_COLUMNS, ...KEY_WORKSPACE_COLUMNS },
});

/**
 * The same lookup on a plain pg pool, as one prepared statement per turn of
 * the event loop: authentication runs on every request, and the requests that
 * arrive together (often with one key) share one round trip. Each statement
 * is sent after every request it serves arrived, so a revocation committed
 * before a request is always seen by it.
 */
export const findApiKeyRowWithSql = (pool: SqlQueryable): FindApiKeyRow => {
  const loader = batchPerTurn<string, ApiKeyRow | null>(async (lookupIds) => {
    const { rows } = await FIND_API_KEYS.run(pool, { lookupIds: [...new Set(lookupIds)] });
    const byLookupId = new Map(rows.map(({ lookupId, ...row }) => [lookupId, row]));
    return lookupIds.map((lookupId) => byLookupId.get(lookupId) ?? null);
  });
  return (lookupId) => loader.load(lookupId);
};

/**
 * Finds the live key a bearer token names. Returns null for a malformed,
 * unknown or revoked key; never says which, so callers answer one 401.
 * `find` defaults to a Prisma lookup on `db`.
 */
export async function authenticateApiKey(db: DbOrTx, token: string, find: FindApiKeyRow = findApiKeyRowWithPrisma(db)): Promise<AuthenticatedKey | null> {
  const match = KEY_PATTERN.exec(token);
  if (!match) return null;
  const [, , lookupId, secret] = match;
  const row = await find(lookupId!);
  if (!row || row.revokedAt) return null;
  if (!constantTimeEqual(row.secretHash, sha256Hex(secret!))) return null;
  return {
    keyId: row.id,
    lookupId: lookupId!,
    workspaceId: row.workspaceId,
    workspaceUid: workspaceUid(row.workspaceId, row.workspaceCreatedAt),
    scopes: row.scopes as Scope[],
    mode: row.mode as Mode,
  };
}
