import { announceApiKeyChange, createApiKey, createDashboardUser, createWorkspace, disableDashboardUser, revokeApiKey } from '@cowrie/accounts';
import { modeArg, positiveIntArg, type CliCommand } from '../command';

export const accountCommands: CliCommand[] = [
  {
    name: 'workspace create',
    // Creates the live workspace and its test side (test_workspace_id), each with its wallets.
    usage: 'cowrie workspace create --name NAME',
    options: ['name'],
    required: ['name'],
    run: async (args, ctx) => {
      const workspace = await createWorkspace(ctx.db(), { name: args.name! });
      return workspace;
    },
  },
  {
    name: 'key create',
    usage: 'cowrie key create --workspace ID --scopes read,payouts:write,verification:write,collections:write [--mode live|test]',
    options: ['workspace', 'scopes', 'mode'],
    required: ['workspace', 'scopes'],
    run: async (args, ctx) => {
      return createApiKey(ctx.db(), { workspaceId: positiveIntArg(args, 'workspace'), scopes: args.scopes!, mode: modeArg(args) });
    },
  },
  {
    name: 'key revoke',
    usage: 'cowrie key revoke --id KEY_ID',
    options: ['id'],
    required: ['id'],
    // Every gateway reads the key again on its next request (the revocation epoch).
    run: async (args, ctx) => {
      const revoked = await revokeApiKey(ctx.db(), positiveIntArg(args, 'id'));
      await announceApiKeyChange(ctx.redis(), ctx.config.REDIS_KEY_PREFIX);
      return revoked;
    },
  },
  {
    name: 'user create',
    usage: 'cowrie user create --workspace ID --email EMAIL --password PASSWORD',
    options: ['workspace', 'email', 'password'],
    required: ['workspace', 'email', 'password'],
    run: (args, ctx) => createDashboardUser(ctx.db(), { workspaceId: positiveIntArg(args, 'workspace'), email: args.email!, password: args.password! }),
  },
  {
    name: 'user disable',
    usage: 'cowrie user disable --id USER_ID',
    options: ['id'],
    required: ['id'],
    // Sign-in and every session of the user are refused from the next request on.
    run: (args, ctx) => disableDashboardUser(ctx.db(), positiveIntArg(args, 'id')),
  },
];
