import { createApiKey, createDashboardUser, createWorkspace, type Scope } from '@cowrie/accounts';
import type { Mode } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { rememberSecret } from './secrets-scan';

export const ALL_SCOPES: Scope[] = ['read', 'payouts:write', 'verification:write', 'collections:write'];

/**
 * What an operator does with the CLI: a workspace (with its wallets, live and
 * test) and a key, live unless `mode` says test. `workspaceId` is the id of
 * the side the key acts on (the test side's for a test key).
 */
export async function createWorkspaceWithKey(db: PrismaClient, opts: { name?: string; scopes?: Scope[]; mode?: Mode } = {}) {
  const workspace = await createWorkspace(db, { name: opts.name ?? 'Test workspace' });
  const mode = opts.mode ?? 'live';
  const key = await createApiKey(db, { workspaceId: workspace.id, scopes: opts.scopes ?? ALL_SCOPES, mode });
  rememberSecret(key.key);
  return { workspace, key: key.key, keyId: key.id, workspaceId: mode === 'test' ? workspace.test_workspace_id : workspace.id };
}

/** Another key of the same business, in `mode`, with every scope unless told. */
export async function createKeyFor(db: PrismaClient, workspaceId: number, mode: Mode, scopes: Scope[] = ALL_SCOPES) {
  const { key } = await createApiKey(db, { workspaceId, scopes, mode });
  rememberSecret(key);
  return key;
}

/** A dashboard user for a workspace; returns the credentials to sign in with. */
export async function createUserFor(db: PrismaClient, workspaceId: number, email = `owner-${workspaceId}-${Date.now()}@example.com`) {
  const password = 'correct horse battery staple';
  rememberSecret(password);
  const user = await createDashboardUser(db, { workspaceId, email, password });
  return { ...user, password };
}
