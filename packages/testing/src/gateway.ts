import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { TestEnv } from './test-env';

export interface RunningGateway<D> {
  url: string;
  deps: D;
  close: () => Promise<void>;
}

/**
 * Starts a gateway app on an ephemeral loopback port. The app factory and deps
 * builder are passed in so this package does not depend on the gateway service.
 */
export async function listenGateway<D extends { logger: unknown }>(
  env: TestEnv,
  build: {
    createDeps: (config: TestEnv['config'], logger: TestEnv['logger']) => D;
    createApp: (deps: D) => import('express').Express;
    closeDeps: (deps: D) => Promise<void>;
  },
): Promise<RunningGateway<D>> {
  const deps = build.createDeps(env.config, env.logger);
  const app = build.createApp(deps);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // As the gateway's main sets it: a client's idle keep-alive connection is
  // never closed under it (with Node's 5 s, a test that paused longer on a
  // busy machine met ECONNRESET reusing one).
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await build.closeDeps(deps);
    },
  };
}
