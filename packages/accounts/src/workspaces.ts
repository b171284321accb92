import { AppError, type Mode } from '@cowrie/core';
import { WALLET_CATALOG } from '@cowrie/catalog';
import {
  defineStatement,
  insertColumns,
  modelColumns,
  sqlColumn,
  sqlList,
  sqlParam,
  type DbOrTx,
  type SqlQueryable,
  type Wallet,
  type Workspace,
} from '@cowrie/db';
import { operatorIdentity } from './audit-trail';

const workspaceColumns = modelColumns<Workspace>()('Workspace', { id: sqlColumn.int, name: sqlColumn.text, createdAt: sqlColumn.timestamp });

/**
 * Creates a workspace: its live side and its test twin (where test keys act,
 * on sandbox rails only), each with one wallet per currency of the wallet
 * catalog, in one statement. The id returned is the live one, which the
 * operator and the dashboard name; the test side is reached through it.
 *
 * `db` is Prisma (a client or a transaction) or plain pg: `cowrie workspace
 * create` passes a pg pool, so the command never starts Prisma's query
 * compiler (loading and compiling it was half of the command's time).
 */
export async function createWorkspace(db: DbOrTx | SqlQueryable, { name }: { name: string }) {
  const trimmed = name.trim();
  if (!trimmed) throw new AppError('invalid_request', 'a workspace needs a name');
  if (trimmed.length > 200) throw new AppError('invalid_request', 'a workspace name is at most 200 characters');
  const currencies = WALLET_CATALOG.map((c) => c.currency);
  const { rows } = await CREATE_WORKSPACE.run(isPrisma(db) ? prismaQueryable(db) : db, { name: trimmed, currencies, now: new Date() });
  const workspace = rows[0]!;
  return {
    id: workspace.id,
    name: workspace.name,
    created_at: workspace.createdAt.toISOString(),
    currencies,
    test_workspace_id: workspace.testWorkspaceId,
  };
}

const CREATE_WORKSPACE = defineStatement({
  name: 'cowrie-create-workspace',
  params: { name: sqlParam.text, currencies: sqlList(sqlParam.text), now: sqlParam.timestamp },
  text: (p) => `
    WITH live AS (
      INSERT INTO "Workspace" (${insertColumns<Workspace>()('name', 'mode', 'createdAt')}) VALUES (${p.name}, 'live', ${p.now}::timestamp(3)) RETURNING "id", "name", "createdAt"
    ), test AS (
      INSERT INTO "Workspace" (${insertColumns<Workspace>()('name', 'mode', 'liveWorkspaceId', 'createdAt')}) SELECT l."name", 'test', l."id", l."createdAt" FROM live l RETURNING "id"
    ), wallets AS (
      INSERT INTO "Wallet" (${insertColumns<Wallet>()('workspaceId', 'currency', 'createdAt', 'updatedAt')})
      SELECT w."id", c."currency", ${p.now}::timestamp(3), ${p.now}::timestamp(3)
      FROM (SELECT "id" FROM live UNION ALL SELECT "id" FROM test) w CROSS JOIN unnest(${p.currencies}::text[]) WITH ORDINALITY AS c("currency", "position")
      ORDER BY w."id", c."position"
    )
    SELECT l."id", l."name", l."createdAt", t."id" AS "testWorkspaceId" FROM live l, test t`,
  result: {
    ...workspaceColumns,
    testWorkspaceId: sqlColumn.int,
  },
});

const isPrisma = (db: DbOrTx | SqlQueryable): db is DbOrTx => '$queryRawUnsafe' in db;

/** The same statement through Prisma's connection, for the callers that hold a Prisma client or transaction. */
function prismaQueryable(db: DbOrTx): SqlQueryable {
  return {
    query: async <R>({ text, values = [] }: { text: string; values?: unknown[] }) => {
      const rows = await db.$queryRawUnsafe<R[]>(text, ...values);
      return { rows, rowCount: rows.length };
    },
  };
}

/**
 * The id of the workspace row holding `mode`'s data for the business whose live
 * workspace is `workspaceId`. Throws when `workspaceId` is not a live
 * workspace: operators and sessions name a business by its live id.
 */
export async function workspaceForMode(db: DbOrTx, workspaceId: number, mode: Mode): Promise<number> {
  const live = await db.workspace.findUnique({
    where: { id: workspaceId },
    select: { id: true, mode: true, liveWorkspaceId: true, testWorkspace: { select: { id: true } } },
  });
  if (!live) throw new Error(`workspace ${workspaceId} does not exist`);
  if (live.mode !== 'live')
    throw new Error(
      `workspace ${workspaceId} is the test side of workspace ${live.liveWorkspaceId}: name the business by its live workspace (--workspace ${live.liveWorkspaceId}${mode === 'test' ? ' --mode test' : ''})`,
    );
  if (mode === 'live') return live.id;
  if (!live.testWorkspace) throw new Error(`workspace ${workspaceId} has no test side`);
  return live.testWorkspace.id;
}

/**
 * Keeps an operator's action on money outside the API (who ran it, from
 * where, what), in the transaction that does it.
 */
export async function recordOperatorAction(
  db: DbOrTx,
  input: { action: string; workspaceId: number; details: Record<string, string | number | boolean | null> },
) {
  return db.operatorAction.create({ data: { action: input.action, workspaceId: input.workspaceId, actor: operatorIdentity(), details: input.details } });
}
