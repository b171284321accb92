import {
  announceApiKeyChange,
  apiKeyIdentity,
  createApiKey,
  createDashboardUser,
  createWorkspace,
  dashboardUserIdentity,
  disableDashboardUser,
  operatorAuditContext,
  recordAuditEvent,
  revokeApiKey,
} from '@cowrie/accounts';
import { modeArg, positiveIntArg, type CliCommand } from '../command';

// Every command here is in the audit trail (actor: the operator's user@host),
// in the transaction that does it; a workspace is recorded right after its
// own transaction commits.
export const accountCommands: CliCommand[] = [
  {
    name: 'workspace create',
    // Creates the live workspace and its test side (test_workspace_id), each with its wallets.
    usage: 'cowrie workspace create --name NAME',
    options: ['name'],
    required: ['name'],
    run: async (args, ctx) => {
      const db = ctx.db();
      const workspace = await createWorkspace(db, { name: args.name! });
      await recordAuditEvent(db, operatorAuditContext(workspace.id), {
        action: 'workspace.created',
        objectId: workspace.id,
        details: { name: workspace.name },
      });
      return workspace;
    },
  },
  {
    name: 'key create',
    usage: 'cowrie key create --workspace ID --scopes read,payouts:write,verification:write,collections:write [--mode live|test]',
    options: ['workspace', 'scopes', 'mode'],
    required: ['workspace', 'scopes'],
    run: (args, ctx) =>
      ctx.db().$transaction(async (tx) => {
        const created = await createApiKey(tx, { workspaceId: positiveIntArg(args, 'workspace'), scopes: args.scopes!, mode: modeArg(args) });
        const key = (await apiKeyIdentity(tx, created.id))!;
        await recordAuditEvent(tx, operatorAuditContext(key.workspaceId), {
          action: 'api_key.created',
          objectId: created.id,
          details: { prefix: key.prefix, name: null, scopes: created.scopes },
        });
        return created;
      }),
  },
  {
    name: 'key revoke',
    usage: 'cowrie key revoke --id KEY_ID',
    options: ['id'],
    required: ['id'],
    // Every gateway reads the key again on its next request (the revocation epoch).
    run: async (args, ctx) => {
      const revoked = await ctx.db().$transaction(async (tx) => {
        const done = await revokeApiKey(tx, positiveIntArg(args, 'id'));
        const key = (await apiKeyIdentity(tx, done.id))!;
        await recordAuditEvent(tx, operatorAuditContext(key.workspaceId), { action: 'api_key.revoked', objectId: done.id, details: { prefix: key.prefix } });
        return done;
      });
      await announceApiKeyChange(ctx.redis(), ctx.config.REDIS_KEY_PREFIX);
      return revoked;
    },
  },
  {
    name: 'user create',
    usage: 'cowrie user create --workspace ID --email EMAIL --password PASSWORD',
    options: ['workspace', 'email', 'password'],
    required: ['workspace', 'email', 'password'],
    run: (args, ctx) =>
      ctx.db().$transaction(async (tx) => {
        const user = await createDashboardUser(tx, { workspaceId: positiveIntArg(args, 'workspace'), email: args.email!, password: args.password! });
        await recordAuditEvent(tx, operatorAuditContext(user.workspace_id), {
          action: 'user.created',
          objectId: user.id,
          details: { email: user.email, role: 'owner' },
        });
        return user;
      }),
  },
  {
    name: 'user disable',
    usage: 'cowrie user disable --id USER_ID',
    options: ['id'],
    required: ['id'],
    // Sign-in and every session of the user are refused from the next request on.
    run: (args, ctx) =>
      ctx.db().$transaction(async (tx) => {
        const disabled = await disableDashboardUser(tx, positiveIntArg(args, 'id'));
        const user = (await dashboardUserIdentity(tx, disabled.id))!;
        await recordAuditEvent(tx, operatorAuditContext(user.workspaceId), { action: 'user.disabled', objectId: disabled.id, details: { email: user.email } });
        return disabled;
      }),
  },
];
