import type { Mode } from '@cowrie/core';
import { WALLET_CATALOG } from '@cowrie/catalog';
import type { DbOrTx, PrismaClient } from '@cowrie/db';
import { operatorIdentity } from './audit-trail';

/**
 * Creates a workspace: its live side and its test twin (where test keys act,
 * on sandbox rails only), each with one wallet per currency of the wallet
 * catalog. The id returned is the live one, which the operator and the
 * dashboard name; the test side is reached through it.
 */
export async function createWorkspace(db: PrismaClient, { name }: { name: string }) {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('a workspace needs a name');
  if (trimmed.length > 200) throw new Error('a workspace name is at most 200 characters');
  return db.$transaction(async (tx) => {
    const workspace = await tx.workspace.create({ data: { name: trimmed } });
    const test = await tx.workspace.create({ data: { name: trimmed, mode: 'test', liveWorkspaceId: workspace.id } });
    await tx.wallet.createMany({
      data: [workspace.id, test.id].flatMap((workspaceId) => WALLET_CATALOG.map(({ currency }) => ({ workspaceId, currency }))),
    });
    return {
      id: workspace.id,
      name: workspace.name,
      created_at: workspace.createdAt.toISOString(),
      currencies: WALLET_CATALOG.map((c) => c.currency),
      test_workspace_id: test.id,
    };
  });
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
    throw new Error(`workspace ${workspaceId} is the test side of workspace ${live.liveWorkspaceId}; name workspace ${live.liveWorkspaceId} with mode test`);
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
