import { createTestEnv, listenGateway, type TestEnv } from '@cowrie/testing';
import { closeGatewayDeps, createGatewayDeps, type GatewayDeps } from '../src/deps';
import { createApp, type CreateAppOptions } from '../src/app';

/** A test env plus a gateway listening on loopback against it. */
export async function startTestGateway(envOverrides: Record<string, string> = {}, appOptions: CreateAppOptions = {}) {
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
