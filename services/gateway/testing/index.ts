import { issueSessionToken } from '@cowrie/accounts';
import { setPasswordHashCost } from '@cowrie/accounts/testing';
import { createUserFor, createWorkspaceWithKey, listenGateway, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { closeGatewayDeps, createGatewayDeps, type GatewayDeps } from '../src/deps';
import { createApp, type CreateAppOptions } from '../src/app';

/**
 * A test env plus a gateway listening on loopback against it. Passwords are
 * hashed at the test cost in this process from here on (setPasswordHashCost:
 * the same scrypt, a 128th of the work) unless `passwordHashCost` says
 * `production`, for tests of the cost itself.
 */
export async function startTestGateway(
  envOverrides: Record<string, string> = {},
  appOptions: CreateAppOptions = {},
  { passwordHashCost = 'test' }: { passwordHashCost?: 'production' | 'test' } = {},
) {
  setPasswordHashCost(passwordHashCost);
  const env: TestEnv = await createTestEnv(envOverrides);
  const gateway = await listenGateway<GatewayDeps>(env, {
    createDeps: (config, logger) => createGatewayDeps(config, logger),
    createApp: (deps) => createApp(deps, appOptions),
    closeDeps: closeGatewayDeps,
  });
  return {
    env,
    url: gateway.url,
    deps: gateway.deps,
    async close() {
      await gateway.close();
      await env.cleanup();
    },
  };
}

/** fetch against the gateway with an optional bearer token and JSON body. */
export function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  return fetch(`${base}${path}`, { method, headers, body }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    body: (await res.json().catch(() => null)) as any,
  }));
}

/** A new workspace with an API key and a dashboard user, signed in: its id, session token and key. */
export async function signInNewWorkspace(gw: { url: string; env: TestEnv }, name: string) {
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name });
  const user = await createUserFor(gw.env.db, workspace.id);
  const login = await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
  if (login.status !== 200) throw new Error(`signing in to ${name} failed: ${JSON.stringify(login.body)}`);
  return { workspaceId: workspace.id, token: login.body.data.token as string, apiKey: key };
}

/**
 * A session of `user` that signed in `secondsAgo` seconds ago (the clock of
 * its token set back): past STEP_UP_SECONDS it is no longer stepped up, and
 * guarded changes answer 403 step_up_required until POST /auth/step-up.
 */
export async function sessionSignedInAgo(gw: { env: TestEnv }, user: { id: number }, secondsAgo: number) {
  const row = await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } });
  const signedInAt = new Date(Date.now() - secondsAgo * 1000);
  return issueSessionToken(
    { userId: row.id, workspaceId: row.workspaceId, version: row.sessionVersion },
    gw.env.config.JWT_SECRET,
    gw.env.config.JWT_TTL_SECONDS,
    signedInAt,
  );
}

/** POST /auth/step-up with a password (a user without a second factor) or a code; throws unless it answers 200. */
export async function stepUp(gw: { url: string }, token: string, proof: { password: string } | { code: string }) {
  const res = await call(gw.url, 'POST', '/auth/step-up', { token, body: proof });
  if (res.status !== 200) throw new Error(`step-up failed: ${JSON.stringify(res.body)}`);
  return res;
}
