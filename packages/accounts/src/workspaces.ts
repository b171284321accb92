import { WALLET_CATALOG } from '@cowrie/catalog';
import type { PrismaClient } from '@cowrie/db';

/** Creates a workspace with one wallet per currency of the wallet catalog. */
export async function createWorkspace(db: PrismaClient, { name }: { name: string }) {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('a workspace needs a name');
  if (trimmed.length > 200) throw new Error('a workspace name is at most 200 characters');
  return db.$transaction(async (tx) => {
    const workspace = await tx.workspace.create({ data: { name: trimmed } });
    await tx.wallet.createMany({
      data: WALLET_CATALOG.map(({ currency }) => ({ workspaceId: workspace.id, currency })),
    });
    return { id: workspace.id, name: workspace.name, created_at: workspace.createdAt.toISOString(), currencies: WALLET_CATALOG.map((c) => c.currency) };
  });
}
