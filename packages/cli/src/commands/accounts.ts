import { modeArg, positiveIntArg, UsageError, type CliCommand } from '../command';
import { readNewPassword } from '../password-input';

// Every command here is in the audit trail (actor: the operator's user@host),
// in the transaction that does it; a workspace is recorded right after its
// own statement commits (both through plain pg, no Prisma).
export const accountCommands: CliCommand[] = [
  {
    name: 'workspace create',
    summary: 'a workspace (its live side, and its test side test_workspace_id), each with a wallet per catalog currency',
    options: [{ name: 'name', value: 'NAME', help: 'the business name, at most 200 characters', required: true }],
    run: async (args, ctx) => {
      const { createWorkspace } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      const sql = await ctx.sql();
      let workspace: Awaited<ReturnType<typeof createWorkspace>>;
      try {
        workspace = await createWorkspace(sql, { name: args.name! });
      } catch (err) {
        // An empty or too long name is the operator's mistake in the command line.
        if ((err as { code?: string }).code === 'invalid_request') throw new UsageError((err as Error).message);
        throw err;
      }
      await recordAuditEvent(sql, operatorAuditContext(workspace.id), {
        action: 'workspace.created',
        objectId: workspace.id,
        details: { name: workspace.name },
      });
      return workspace;
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
      const { apiKeyIdentity, createApiKey, parseScopes } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      const workspaceId = positiveIntArg(args, 'workspace');
      const mode = modeArg(args);
      let scopes: ReturnType<typeof parseScopes>;
      try {
        scopes = parseScopes(args.scopes!);
      } catch (err) {
        // An unknown or missing scope is the operator's mistake in the command line.
        throw new UsageError((err as Error).message);
      }
      return (await ctx.db()).$transaction(async (tx) => {
        const created = await createApiKey(tx, { workspaceId, scopes, mode });
        const key = (await apiKeyIdentity(tx, created.id))!;
        await recordAuditEvent(tx, operatorAuditContext(key.workspaceId), {
          action: 'api_key.created',
          objectId: created.id,
          details: { prefix: key.prefix, name: null, scopes: created.scopes },
        });
        return created;
      });
    },
  },
  {
    name: 'key revoke',
    summary: 'revokes an API key at once',
    details: 'Every gateway reads the key again on its next request (the revocation epoch in Redis).',
    options: [{ name: 'id', value: 'KEY_ID', help: "the key's id (key create's id)", required: true }],
    run: async (args, ctx) => {
      const { announceApiKeyChange, apiKeyIdentity, revokeApiKey, API_KEY_CACHE_MAX_AGE_MS } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      const revoked = await (
        await ctx.db()
      ).$transaction(async (tx) => {
        const done = await revokeApiKey(tx, positiveIntArg(args, 'id'));
        const key = (await apiKeyIdentity(tx, done.id))!;
        await recordAuditEvent(tx, operatorAuditContext(key.workspaceId), { action: 'api_key.revoked', objectId: done.id, details: { prefix: key.prefix } });
        return done;
      });
      // The revocation is committed: a failed announcement must not read as a
      // failed revoke (the operator would retry a done thing, or think the key works).
      try {
        await announceApiKeyChange(await ctx.redis(), ctx.config.REDIS_KEY_PREFIX);
      } catch (err) {
        ctx.warn(
          `key ${revoked.id} is revoked, but gateways were not told at once (${(err as Error).message}): each stops accepting it within ${API_KEY_CACHE_MAX_AGE_MS / 1000} s, when its cached copy expires`,
        );
      }
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
      const { insertDashboardUser, prepareDashboardUser } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      const workspaceId = positiveIntArg(args, 'workspace');
      const password = await readNewPassword(args, ctx);
      // The password's hash is made before the transaction opens, not while it holds a connection.
      const prepared = await prepareDashboardUser({ workspaceId, email: args.email!, password });
      return (await ctx.db()).$transaction(async (tx) => {
        const user = await insertDashboardUser(tx, prepared);
        await recordAuditEvent(tx, operatorAuditContext(user.workspace_id), {
          action: 'user.created',
          objectId: user.id,
          details: { email: user.email, role: 'owner' },
        });
        return user;
      });
    },
  },
  {
    name: 'user disable',
    summary: "refuses the user's sign-in and ends every session of theirs from the next request on",
    options: [{ name: 'id', value: 'USER_ID', help: "the user's id (user create's id)", required: true }],
    run: async (args, ctx) => {
      const { dashboardUserIdentity, disableDashboardUser } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      return (await ctx.db()).$transaction(async (tx) => {
        const disabled = await disableDashboardUser(tx, positiveIntArg(args, 'id'));
        const user = (await dashboardUserIdentity(tx, disabled.id))!;
        await recordAuditEvent(tx, operatorAuditContext(user.workspaceId), { action: 'user.disabled', objectId: disabled.id, details: { email: user.email } });
        return disabled;
      });
    },
  },
];
