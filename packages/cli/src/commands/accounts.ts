import { modeArg, positiveIntArg, type CliCommand } from '../command';
import { readNewPassword } from '../password-input';

export const accountCommands: CliCommand[] = [
  {
    name: 'workspace create',
    summary: 'a workspace (its live side, and its test side test_workspace_id), each with a wallet per catalog currency',
    options: [{ name: 'name', value: 'NAME', help: 'the business name, at most 200 characters', required: true }],
    run: async (args, ctx) => {
      const { createWorkspace } = await import('../load/accounts');
      return createWorkspace(await ctx.sql(), { name: args.name! });
    },
  },
  {
    name: 'key create',
    summary: 'an API key (ck_live_…, or ck_test_… on the test side), printed once; only its SHA-256 is stored',
    options: [
      { name: 'workspace', value: 'ID', help: "the workspace's live id", required: true },
      { name: 'scopes', value: 'LIST', help: 'comma-separated: read, payouts:write, verification:write, collections:write', required: true },
      { name: 'mode', value: 'live|test', help: 'the side the key acts on (default live)' },
    ],
    run: async (args, ctx) => {
      const { createApiKey } = await import('../load/accounts');
      return createApiKey(await ctx.db(), { workspaceId: positiveIntArg(args, 'workspace'), scopes: args.scopes!, mode: modeArg(args) });
    },
  },
  {
    name: 'key revoke',
    summary: 'revokes an API key at once',
    details: 'Every gateway reads the key again on its next request (the revocation epoch in Redis).',
    options: [{ name: 'id', value: 'KEY_ID', help: "the key's id (key create's id)", required: true }],
    run: async (args, ctx) => {
      const { announceApiKeyChange, revokeApiKey } = await import('../load/accounts');
      const revoked = await revokeApiKey(await ctx.db(), positiveIntArg(args, 'id'));
      await announceApiKeyChange(await ctx.redis(), ctx.config.REDIS_KEY_PREFIX);
      return revoked;
    },
  },
  {
    name: 'user create',
    summary: 'a dashboard user (scrypt-hashed password); the password from a prompt or --password-stdin',
    details: [
      'The password is never an argument: with --password-stdin it is read from stdin (one trailing',
      'newline dropped), otherwise it is asked twice, without echo, when stdin is a terminal.',
      "  printf '%s' 'a long passphrase' | cowrie user create --workspace 1 --email ops@acme.test --password-stdin",
    ].join('\n'),
    options: [
      { name: 'workspace', value: 'ID', help: "the workspace's live id", required: true },
      { name: 'email', value: 'EMAIL', help: 'the sign-in email', required: true },
      { name: 'password-stdin', help: 'read the password from stdin (at least 12 characters, not a common one)' },
      { name: 'password', value: 'PASSWORD', help: 'deprecated: visible in the process list and shell history', deprecated: true },
    ],
    run: async (args, ctx) => {
      const { createDashboardUser } = await import('../load/accounts');
      const workspaceId = positiveIntArg(args, 'workspace');
      const password = await readNewPassword(args, ctx);
      return createDashboardUser(await ctx.db(), { workspaceId, email: args.email!, password });
    },
  },
  {
    name: 'user disable',
    summary: "refuses the user's sign-in and ends every session of theirs from the next request on",
    options: [{ name: 'id', value: 'USER_ID', help: "the user's id (user create's id)", required: true }],
    run: async (args, ctx) => {
      const { disableDashboardUser } = await import('../load/accounts');
      return disableDashboardUser(await ctx.db(), positiveIntArg(args, 'id'));
    },
  },
];
