import { createApiKey, createDashboardUser, createWorkspace, type TScope } from '@cowrie/accounts';
import type { PrismaClient } from '@cowrie/db';

export const ALL_SCOPES: TScope[] = ['read', 'payouts:write', 'verification:write', 'collections:write'];

/** What an operator does with the CLI: a workspace (with its wallets) and a key. */
export async function createWorkspaceWithKey(db: PrismaClient, opts: { name?: string; scopes?: TScope[] } = {}) {
  const workspace = await createWorkspace(db, { name: opts.name ?? 'Test workspace' });
  const key = await createApiKey(db, { workspaceId: workspace.id, scopes: opts.scopes ?? ALL_SCOPES });
  return { workspace, key: key.key, keyId: key.id };
}

/** A dashboard user for a workspace; returns the credentials to sign in with. */
export async function createUserFor(db: PrismaClient, workspaceId: number, email = `owner-${workspaceId}-${Date.now()}@example.com`) {
  const password = 'correct horse battery staple';
  const user = await createDashboardUser(db, { workspaceId, email, password });
  return { ...user, password };
}
