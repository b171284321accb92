import { hostname, userInfo } from 'node:os';
import { z } from 'zod';
import {
  csvText,
  decodePageCursor,
  emailField,
  newestFirst,
  pageLimit,
  pageOf,
  pagedCsv,
  queryTimeField,
  redactSecretText,
  redactSecrets,
  rowsAfter,
} from '@cowrie/core';
import {
  defineStatement,
  insensitiveEquals,
  insertColumns,
  sqlColumn,
  sqlParam,
  type AuditEvent,
  type DbOrTx,
  type Prisma,
  type SqlQueryable,
} from '@cowrie/db';
import { AUDIT_ACTIONS, AUDIT_ACTION_NAMES, type AuditAction, type AuditDetails, type AuditObjectType } from './audit-catalog';

/** Who acted. */
export type AuditActor =
  /** A dashboard user (a session). */
  | { type: 'user'; userId: number; email: string }
  /** An API key, by its public prefix `ck_<mode>_<lookup id>`. */
  | { type: 'api_key'; prefix: string }
  /** The operator CLI: the OS user and host that ran it. */
  | { type: 'operator'; name: string }
  /** Nobody signed in (a failed sign-in). */
  | { type: 'anonymous' };

/** Where an action came from: who, from which address and program, in which request. */
export interface AuditContext {
  /**
   * The workspace acted on: a session's or key's (the side of its mode), or a
   * business's live workspace; the row belongs to the business (its live
   * workspace) and takes the side's `livemode` for an action on one side.
   * Null only when no business is known (a sign-in with an email no user has).
   */
  workspaceId: number | null;
  actor: AuditActor;
  clientAddress?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

/** One action to record: its name (typed by the catalog), the object's id, and its details. */
export interface AuditEventInput<A extends AuditAction> {
  action: A;
  /** The id of the object the catalog says the action acts on (null when there is none, an unknown user's failed sign-in). */
  objectId: string | number | bigint | null;
  details: AuditDetails<A>;
}

// What a client sends us is kept short: a user agent can be any length.
const USER_AGENT_MAX = 512;
const ADDRESS_MAX = 100;
const shortText = (value: string | null | undefined, max: number) => (value ? redactSecretText(value).slice(0, max) : null);

/** The operator running this process, as `user@host` (the CLI's actor). */
export function operatorIdentity(): string {
  return `${osUser()}@${hostname()}`;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A container user without a passwd entry.
    return process.env.USER ?? `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

/** The operator CLI's context for an action on `workspaceId`. */
export const operatorAuditContext = (workspaceId: number): AuditContext => ({ workspaceId, actor: { type: 'operator', name: operatorIdentity() } });

function actorColumns(actor: AuditActor): Pick<AuditEvent, 'actorType' | 'actorUserId' | 'actor'> {
  switch (actor.type) {
    case 'user':
      return { actorType: 'user', actorUserId: actor.userId, actor: actor.email };
    case 'api_key':
      return { actorType: 'api_key', actorUserId: null, actor: actor.prefix };
    case 'operator':
      return { actorType: 'operator', actorUserId: null, actor: actor.name };
    case 'anonymous':
      return { actorType: 'anonymous', actorUserId: null, actor: null };
  }
}

/**
 * Records one action in the audit trail. Pass the transaction that does the
 * action when there is one, so the row commits with it (or not at all).
 * `details` keeps only the catalog's fields for the action (anything else is
 * dropped) and every string in it is cleared of secrets by shape (a URL's
 * password, an API key's secret part, a token).
 *
 * `db` is Prisma (a client or a transaction) or plain pg: `cowrie workspace
 * create` records its row through its pg pool, never starting Prisma. Either
 * way the row is written by one statement, which also finds the business and
 * side of the workspace acted on.
 */
export async function recordAuditEvent<A extends AuditAction>(db: DbOrTx | SqlQueryable, context: AuditContext, event: AuditEventInput<A>): Promise<void> {
  const definition = AUDIT_ACTIONS[event.action];
  const details = redactSecrets(definition.details.parse(event.details)) as Record<string, unknown>;
  const { rowCount } = await RECORD_AUDIT_EVENT.run(isPrisma(db) ? prismaQueryable(db) : db, {
    workspaceId: context.workspaceId,
    businessScope: definition.scope === 'business',
    action: event.action,
    ...actorColumns(context.actor),
    objectType: definition.object,
    objectId: event.objectId === null ? null : String(event.objectId),
    clientAddress: shortText(context.clientAddress, ADDRESS_MAX),
    userAgent: shortText(context.userAgent, USER_AGENT_MAX),
    requestId: context.requestId ?? null,
    details,
    now: new Date(),
  });
  if (rowCount === 0) throw new Error(`workspace ${context.workspaceId} does not exist`);
}

/** The columns RECORD_AUDIT_EVENT writes, in the order its SELECT gives them. */
const AUDIT_EVENT_COLUMNS = insertColumns<AuditEvent>()(
  'workspaceId',
  'livemode',
  'action',
  'actorType',
  'actorUserId',
  'actor',
  'objectType',
  'objectId',
  'clientAddress',
  'userAgent',
  'requestId',
  'details',
  'createdAt',
);

// The row belongs to the business (the live workspace of the side acted on);
// `livemode` is the side's, or true for an action on the whole business. No
// row is written when a workspace is named and does not exist.
const RECORD_AUDIT_EVENT = defineStatement({
  name: 'cowrie-record-audit-event',
  params: {
    workspaceId: sqlParam.int.orNull,
    businessScope: sqlParam.boolean,
    action: sqlParam.text,
    actorType: sqlParam.text,
    actorUserId: sqlParam.int.orNull,
    actor: sqlParam.text.orNull,
    objectType: sqlParam.text,
    objectId: sqlParam.text.orNull,
    clientAddress: sqlParam.text.orNull,
    userAgent: sqlParam.text.orNull,
    requestId: sqlParam.text.orNull,
    details: sqlParam.json,
    now: sqlParam.timestamp,
  },
  text: (p) => `
    INSERT INTO "AuditEvent" (${AUDIT_EVENT_COLUMNS})
    SELECT COALESCE(w."liveWorkspaceId", w."id"), (${p.businessScope}::boolean OR w."id" IS NULL OR w."mode" = 'live'), ${p.action}::text, ${p.actorType}::text, ${p.actorUserId}::int, ${p.actor}::text,
           ${p.objectType}::text, ${p.objectId}::text, ${p.clientAddress}::text, ${p.userAgent}::text, ${p.requestId}::text, ${p.details}::jsonb, ${p.now}::timestamp(3)
    FROM (SELECT ${p.workspaceId}::int AS "id") named LEFT JOIN "Workspace" w ON w."id" = named."id"
    WHERE named."id" IS NULL OR w."id" IS NOT NULL
    RETURNING "id"`,
  result: { id: sqlColumn.bigint },
});

const isPrisma = (db: DbOrTx | SqlQueryable): db is DbOrTx => '$queryRawUnsafe' in db;

/** The statement through Prisma's connection, for the callers that hold a Prisma client or transaction. */
function prismaQueryable(db: DbOrTx): SqlQueryable {
  return {
    query: async <R>({ text, values = [] }: { text: string; values?: unknown[] }) => {
      const rows = await db.$queryRawUnsafe<R[]>(text, ...values);
      return { rows, rowCount: rows.length };
    },
  };
}

/**
 * Records a refused sign-in: the email tried (only when it is an email: a
 * password typed in the wrong field is never kept), under the business of
 * the user who has that email, if one does.
 */
export async function recordSignInFailure(db: DbOrTx, context: Omit<AuditContext, 'workspaceId' | 'actor'>, emailTried: string): Promise<void> {
  const normalised = emailTried.trim().toLowerCase();
  const email = emailField.safeParse(normalised).success ? normalised : null;
  const user = email ? await db.dashboardUser.findUnique({ where: { email }, select: { id: true, workspaceId: true } }) : null;
  await recordAuditEvent(
    db,
    { ...context, workspaceId: user?.workspaceId ?? null, actor: { type: 'anonymous' } },
    { action: 'user.sign_in_failed', objectId: user?.id ?? null, details: { email } },
  );
}

// ─── Reading the trail ──────────────────────────────────────────────────────────

export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'operator', 'anonymous'] as const;

/** Which rows a list or an export of the trail holds. */
export const ZAuditEventFilters = z.object({
  action: z.enum(AUDIT_ACTION_NAMES).optional().meta({ description: 'Only rows of this action' }),
  actor: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .optional()
    .meta({ description: "Only rows of this actor: a user's id or email, an API key's prefix (`ck_live_…`), or the operator's `user@host` (any case)" }),
  from: queryTimeField.optional().meta({ description: 'Only rows at or after this time (ISO 8601 with its offset)' }),
  to: queryTimeField.optional().meta({ description: 'Only rows before this time' }),
});
export type AuditEventFilters = z.output<typeof ZAuditEventFilters>;

/** A row of the trail as the API shows it. */
export interface AuditEventView {
  id: number;
  /** The business (its live workspace). */
  workspace_id: number;
  livemode: boolean;
  action: AuditAction;
  actor: {
    type: (typeof AUDIT_ACTOR_TYPES)[number];
    /** A user's id (type user). */
    user_id: number | null;
    /** A user's email (type user). */
    email: string | null;
    /** An API key's prefix (type api_key). */
    api_key_prefix: string | null;
    /** The operator's `user@host` (type operator). */
    operator: string | null;
  };
  object: { type: AuditObjectType; id: string | null };
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

function auditEventView(row: AuditEvent): AuditEventView {
  const as = (type: string) => (row.actorType === type ? row.actor : null);
  return {
    id: Number(row.id),
    workspace_id: row.workspaceId!,
    livemode: row.livemode,
    action: row.action as AuditAction,
    actor: {
      type: row.actorType as AuditEventView['actor']['type'],
      user_id: row.actorUserId,
      email: as('user'),
      api_key_prefix: as('api_key'),
      operator: as('operator'),
    },
    object: { type: row.objectType as AuditObjectType, id: row.objectId },
    client_address: row.clientAddress,
    user_agent: row.userAgent,
    request_id: row.requestId,
    details: (row.details ?? {}) as Record<string, unknown>,
    created_at: row.createdAt.toISOString(),
  };
}

/** The rows of a business the filters keep. */
function filtered(workspaceId: number, filters: AuditEventFilters): Prisma.AuditEventWhereInput {
  const where: Prisma.AuditEventWhereInput = { workspaceId };
  if (filters.action) where.action = filters.action;
  if (filters.actor) {
    const byName: Prisma.AuditEventWhereInput = { actor: insensitiveEquals(filters.actor) };
    const asId = /^\d{1,9}$/.test(filters.actor) ? Number(filters.actor) : null;
    where.AND = [asId === null ? byName : { OR: [byName, { actorUserId: asId }] }];
  }
  if (filters.from || filters.to) where.createdAt = { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lt: filters.to } : {}) };
  return where;
}

/** GET /audit-events: a business's trail, newest first, filtered, cursor paginated. */
export async function listAuditEvents(db: DbOrTx, input: AuditEventFilters & { workspaceId: number; limit?: number; cursor?: string }) {
  const limit = pageLimit(input.limit);
  const where = filtered(input.workspaceId, input);
  const rows = await db.auditEvent.findMany({
    // Ids are bigint: a cursor's id may pass int4 (up to 2^53, as a page's position is a number).
    where: input.cursor ? { AND: [where, rowsAfter(decodePageCursor(input.cursor, { maxId: Number.MAX_SAFE_INTEGER }))] } : where,
    orderBy: newestFirst(),
    take: limit + 1,
  });
  // A page's position is a number (safe to 2^53 rows).
  const positioned = rows.map((row) => ({ row, createdAt: row.createdAt, id: Number(row.id) }));
  return pageOf(positioned, limit, ({ row }) => auditEventView(row));
}

/** The columns of an export of the trail, in order. */
const CSV_COLUMNS = [
  'id',
  'created_at',
  'action',
  'livemode',
  'actor_type',
  'actor_user_id',
  'actor',
  'object_type',
  'object_id',
  'client_address',
  'user_agent',
  'request_id',
  'details',
] as const;

function csvRecord(row: AuditEvent): string[] {
  const v = auditEventView(row);
  return [
    String(v.id),
    v.created_at,
    v.action,
    String(v.livemode),
    v.actor.type,
    v.actor.user_id === null ? '' : String(v.actor.user_id),
    csvText(row.actor),
    v.object.type,
    csvText(v.object.id),
    csvText(v.client_address),
    csvText(v.user_agent),
    csvText(v.request_id),
    csvText(JSON.stringify(v.details)),
  ];
}

/**
 * The filtered trail as CSV text (RFC 4180, a header line first), newest
 * first, a page of rows at a time, so an export of any size holds one page in
 * memory. A text cell a spreadsheet would run as a formula starts with `'`.
 */
export async function* auditEventsCsv(db: DbOrTx, input: AuditEventFilters & { workspaceId: number }): AsyncGenerator<string> {
  const where = filtered(input.workspaceId, input);
  yield* pagedCsv({
    columns: CSV_COLUMNS,
    record: csvRecord,
    page: (after, size) => db.auditEvent.findMany({ where: after ? { AND: [where, rowsAfter(after)] } : where, orderBy: newestFirst(), take: size }),
  });
}
