import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, constantTimeEqual, rollGraceSecondsField, sha256Hex, textField, type Mode } from '@cowrie/core';
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
import { SCOPES, parseScopes, type Scope } from './scopes';
import { workspaceForMode } from './workspaces';

/** `ck_<mode>_<16 hex lookup id>_<43 base64url secret>` */
const KEY_PATTERN = /^ck_(live|test)_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface CreateApiKeyInput {
  /** The business's (live) workspace; a test key is kept on its test side. */
  workspaceId: number;
  scopes: string | readonly string[];
  mode?: Mode;
  /** A label for its owner (optional from the CLI). */
  name?: string | null;
}

/** Stores a new key on the workspace row `keptOn`; the plaintext is returned this once and only its hash is stored. */
async function insertApiKey(db: DbOrTx, opts: { keptOn: number; mode: Mode; scopes: Scope[]; name: string | null; createdByUserId?: number | null }) {
  const lookupId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const row = await db.apiKey.create({
    data: {
      workspaceId: opts.keptOn,
      lookupId,
      secretHash: sha256Hex(secret),
      mode: opts.mode,
      scopes: opts.scopes,
      name: opts.name,
      createdByUserId: opts.createdByUserId ?? null,
    },
    select: API_KEY_VIEW_SELECT,
  });
  return { row, key: `ck_${opts.mode}_${lookupId}_${secret}` };
}

/** Creates a key (the operator CLI); the plaintext is returned this once and only its hash is stored. */
export async function createApiKey(db: DbOrTx, { workspaceId, scopes, mode = 'live', name = null }: CreateApiKeyInput) {
  const parsedScopes = parseScopes(scopes);
  const keptOn = await workspaceForMode(db, workspaceId, mode);
  const { row, key } = await insertApiKey(db, { keptOn, mode, scopes: parsedScopes, name });
  return { id: row.id, key, scopes: parsedScopes, workspace_id: workspaceId, mode };
}

/**
 * Where a revoke writes: a key that still works, now (a rolled key in its
 * grace period too). The condition is checked on the row as it is when the
 * write gets it, so a revoke never lengthens an earlier stop, and one that
 * waited for a roll's transaction cuts the grace that roll wrote.
 */
const stillWorks = (now: Date) => ({ OR: [{ revokedAt: null }, { revokedAt: { gt: now } }] });

/** Revokes a key (the operator CLI). Then announceApiKeyChange, so every gateway reads it again. */
export async function revokeApiKey(db: DbOrTx, id: number) {
  const now = new Date();
  const { count } = await db.apiKey.updateMany({ where: { id, ...stillWorks(now) }, data: { revokedAt: now } });
  if (count === 0 && !(await db.apiKey.findUnique({ where: { id }, select: { id: true } }))) throw new Error(`API key ${id} does not exist`);
  return { id, revoked: true as const };
}

// ─── Self-service keys: a dashboard session manages its workspace's keys ─────

export const ZCreateApiKeyRequest = z.object({
  name: textField(100),
  scopes: z.array(z.enum(SCOPES)).min(1, 'must name at least one scope').max(SCOPES.length),
});
export const ZRollApiKeyRequest = z.object({ grace_seconds: rollGraceSecondsField('the old key keeps working') });

/** A key as its owner sees it: never the key itself, only its public prefix. */
export interface ApiKeyView {
  id: number;
  name: string | null;
  /** `ck_<mode>_<lookup id>`: how the owner tells keys apart; the secret part is never shown again. */
  prefix: string;
  mode: Mode;
  scopes: Scope[];
  /** active; expiring (a rolled key in its grace period, until expires_at); revoked */
  status: 'active' | 'expiring' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  /** When an expiring key stops working; for a revoked one, when it stopped. */
  expires_at: string | null;
  /** The dashboard user whose session made it (a create or a roll); null for a key the operator CLI made. */
  created_by_user_id: number | null;
}

type ApiKeyViewRow = Pick<ApiKey, 'id' | 'name' | 'lookupId' | 'mode' | 'scopes' | 'revokedAt' | 'lastUsedAt' | 'createdAt' | 'createdByUserId'>;
const API_KEY_VIEW_SELECT = {
  id: true,
  name: true,
  lookupId: true,
  mode: true,
  scopes: true,
  revokedAt: true,
  lastUsedAt: true,
  createdAt: true,
  createdByUserId: true,
} as const;

/** A key's public prefix, `ck_<mode>_<lookup id>`: how its owner and the audit trail tell keys apart. */
export const apiKeyPrefix = (key: { mode: string; lookupId: string }): string => `ck_${key.mode}_${key.lookupId}`;

/** A key's workspace row (the side it is kept on) and its prefix; null when there is no such key. */
export async function apiKeyIdentity(db: DbOrTx, id: number): Promise<{ workspaceId: number; prefix: string } | null> {
  const row = await db.apiKey.findUnique({ where: { id }, select: { workspaceId: true, mode: true, lookupId: true } });
  return row && { workspaceId: row.workspaceId, prefix: apiKeyPrefix(row) };
}

function viewOf(row: ApiKeyViewRow, now: Date): ApiKeyView {
  const status = !row.revokedAt ? 'active' : row.revokedAt > now ? 'expiring' : 'revoked';
  return {
    id: row.id,
    name: row.name,
    prefix: apiKeyPrefix(row),
    mode: row.mode as Mode,
    scopes: row.scopes as Scope[],
    status,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.revokedAt?.toISOString() ?? null,
    created_by_user_id: row.createdByUserId,
  };
}

/** The keys of one workspace row (a session's mode side), newest first. */
export async function listOwnApiKeys(db: DbOrTx, workspaceId: number, now = new Date()): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ where: { workspaceId }, select: API_KEY_VIEW_SELECT, orderBy: { id: 'desc' } });
  return rows.map((row) => viewOf(row, now));
}

/** A new key on the workspace row of the session's mode; the key is in the answer this once. */
export async function createOwnApiKey(
  db: DbOrTx,
  opts: { workspaceId: number; mode: Mode; input: z.output<typeof ZCreateApiKeyRequest>; createdByUserId: number },
) {
  const { row, key } = await insertApiKey(db, {
    keptOn: opts.workspaceId,
    mode: opts.mode,
    scopes: [...new Set(opts.input.scopes)],
    name: opts.input.name,
    createdByUserId: opts.createdByUserId,
  });
  return { ...viewOf(row, new Date()), key };
}

/** One of the workspace's keys; not_found for anyone else's, whatever exists. */
async function ownApiKey(db: DbOrTx, workspaceId: number, id: number) {
  const row = await db.apiKey.findFirst({ where: { id, workspaceId }, select: API_KEY_VIEW_SELECT });
  if (!row) throw new AppError('not_found', 'No such API key in this workspace');
  return row;
}

/**
 * Revokes one of the workspace's keys now (an expiring one too); a key that
 * has stopped is answered as it is. A revoke always wins over a roll at the
 * same moment: one that lands first makes the roll refused, one that lands
 * after stops the rolled key now. Then announceApiKeyChange: its next request
 * is 401, on every replica.
 */
export async function revokeOwnApiKey(db: DbOrTx, opts: { workspaceId: number; id: number; now?: Date }): Promise<ApiKeyView> {
  const now = opts.now ?? new Date();
  const [revoked] = await db.apiKey.updateManyAndReturn({
    where: { id: opts.id, workspaceId: opts.workspaceId, ...stillWorks(now) },
    data: { revokedAt: now },
    select: API_KEY_VIEW_SELECT,
  });
  return viewOf(revoked ?? (await ownApiKey(db, opts.workspaceId, opts.id)), now);
}

/**
 * Replaces one of the workspace's keys: a new key with the same name and
 * scopes (returned this once), while the old one keeps working for the grace
 * period and then stops. Only a key never rolled nor revoked is rolled: a
 * revoked one is refused (`api_key_revoked`), and so is an expiring one, the
 * old key of an earlier roll (`api_key_rolled`; its successor is the one to
 * roll), so a key has at most one successor and its grace is never changed.
 *
 * The old key's stop is written first, on the condition that it has none:
 * the row then stays locked until the caller's transaction ends, so of rolls
 * and revokes at the same moment the first to write wins and the others see
 * what it wrote (a revoke after this roll stops the old key now; a roll or a
 * revoke before it makes this roll refused, and nothing is made). Then
 * announceApiKeyChange.
 */
export async function rollOwnApiKey(db: DbOrTx, opts: { workspaceId: number; id: number; graceSeconds: number; createdByUserId: number; now?: Date }) {
  const now = opts.now ?? new Date();
  const graceEnds = new Date(now.getTime() + opts.graceSeconds * 1000);
  const [previous] = await db.apiKey.updateManyAndReturn({
    where: { id: opts.id, workspaceId: opts.workspaceId, revokedAt: null },
    data: { revokedAt: graceEnds },
    select: API_KEY_VIEW_SELECT,
  });
  if (!previous) throw notRollable(await ownApiKey(db, opts.workspaceId, opts.id), now);
  const { row, key } = await insertApiKey(db, {
    keptOn: opts.workspaceId,
    mode: previous.mode as Mode,
    scopes: previous.scopes as Scope[],
    name: previous.name,
    createdByUserId: opts.createdByUserId,
  });
  return { ...viewOf(row, now), key, previous: viewOf(previous, now) };
}

/** Why a key that has a stop (revokedAt) is not rolled: revoked (or its grace is over), or the old key of an earlier roll. */
function notRollable(row: ApiKeyViewRow, now: Date): AppError {
  return apiKeyStopped(row, now)
    ? new AppError('invalid_request', 'This API key is revoked; create a new one instead', { details: { field: 'id', reason: 'api_key_revoked' } })
    : new AppError('invalid_request', 'This API key was already rolled: roll its successor instead (or revoke this one to stop it before its grace ends)', {
        details: { field: 'id', reason: 'api_key_rolled' },
      });
}

/** The keys a dashboard user made (both modes; revoked ones too), newest first. */
export async function listApiKeysCreatedBy(db: DbOrTx, userId: number, now = new Date()): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ where: { createdByUserId: userId }, select: API_KEY_VIEW_SELECT, orderBy: { id: 'desc' } });
  return rows.map((row) => viewOf(row, now));
}

/** Revokes now every key a dashboard user made that still works (an expiring one too). Then announceApiKeyChange. Returns how many. */
export async function revokeApiKeysCreatedBy(db: DbOrTx, userId: number, now = new Date()): Promise<number> {
  const { count } = await db.apiKey.updateMany({
    where: { createdByUserId: userId, ...stillWorks(now) },
    data: { revokedAt: now },
  });
  return count;
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

/** A bearer token in the shape of an API key: its lookup id and secret. */
export interface ParsedApiKey {
  lookupId: string;
  secret: string;
}

/** The parts of a token shaped like an API key; null for anything else. */
export function parseApiKey(token: string): ParsedApiKey | null {
  const match = KEY_PATTERN.exec(token);
  return match ? { lookupId: match[2]!, secret: match[3]! } : null;
}

/** Whether a key has stopped: revokedAt is when it stops, now for a revoke, later for a rolled key still in its grace period. */
export const apiKeyStopped = (row: Pick<ApiKeyRow, 'revokedAt'>, now = new Date()): boolean => row.revokedAt !== null && row.revokedAt <= now;

/** The key a row makes of the token, when the row is live now and the secret is its own; null otherwise. */
export function checkApiKeyRow(row: ApiKeyRow, token: ParsedApiKey, now = new Date()): AuthenticatedKey | null {
  if (apiKeyStopped(row, now)) return null;
  if (!constantTimeEqual(row.secretHash, sha256Hex(token.secret))) return null;
  return {
    keyId: row.id,
    lookupId: token.lookupId,
    workspaceId: row.workspaceId,
    workspaceUid: workspaceUid(row.workspaceId, row.workspaceCreatedAt),
    scopes: row.scopes as Scope[],
    mode: row.mode as Mode,
  };
}

/**
 * Finds the live key a bearer token names. Returns null for a malformed,
 * unknown or revoked key; never says which, so callers answer one 401.
 * `find` defaults to a Prisma lookup on `db`. (The gateway authenticates
 * through cachedApiKeyAuthenticator.)
 */
export async function authenticateApiKey(db: DbOrTx, token: string, find: FindApiKeyRow = findApiKeyRowWithPrisma(db)): Promise<AuthenticatedKey | null> {
  const parsed = parseApiKey(token);
  if (!parsed) return null;
  const row = await find(parsed.lookupId);
  return row && checkApiKeyRow(row, parsed);
}

// ─── Last use, written cheaply ─────────────────────────────────────────────────

/** How often one process writes a key's last use: at most once a minute per key. */
const LAST_USED_EVERY_MS = 60_000;
// Keys a recorder remembers before it forgets those past their minute.
const USE_RECORDER_MAX_KEYS = 10_000;

const TOUCH_API_KEY = defineStatement({
  name: 'cowrie-touch-api-key',
  // Times come from the process, in UTC like every timestamp(3) column (Postgres's now() would be cast in the session's time zone).
  params: { id: sqlParam.int, at: sqlParam.timestamp, writtenBefore: sqlParam.timestamp },
  // Replicas may race: the condition keeps the row from being written more than once a minute by any of them.
  text: (p) => `UPDATE "ApiKey" SET "lastUsedAt" = ${p.at} WHERE "id" = ${p.id} AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ${p.writtenBefore})`,
});

/**
 * Records that a key authenticated a request, as `lastUsedAt`: not a write
 * per request (at most one a minute per key and process, and a row already
 * written within the minute is left alone), never awaited by the request,
 * and a failed write is only reported.
 */
export function apiKeyUseRecorder(pool: SqlQueryable, onError: (err: unknown) => void, now: () => number = Date.now) {
  const lastWritten = new Map<number, number>();
  return (keyId: number): void => {
    const at = now();
    if (at - (lastWritten.get(keyId) ?? -Infinity) < LAST_USED_EVERY_MS) return;
    // Keys not written within the minute are only remembered to be skipped: forget them once many keys have been seen.
    if (lastWritten.size >= USE_RECORDER_MAX_KEYS) {
      for (const [id, writtenAt] of lastWritten) if (at - writtenAt >= LAST_USED_EVERY_MS) lastWritten.delete(id);
    }
    lastWritten.set(keyId, at);
    TOUCH_API_KEY.run(pool, { id: keyId, at: new Date(at), writtenBefore: new Date(at - LAST_USED_EVERY_MS) }).catch((err: unknown) => {
      lastWritten.delete(keyId);
      onError(err);
    });
  };
}
