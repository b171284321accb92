import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

/** A free loopback TCP port (the OS picks it; it is released before returning). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILLs the server (no shutdown save). */
  kill: () => Promise<void>;
  /** Starts it again on the same port with the same arguments. */
  restart: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * A private `redis-server` on a free loopback port, for tests that must kill,
 * flush or misconfigure Redis without touching the shared one. No persistence
 * unless `args` ask for it.
 */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', ...args], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    for (let i = 0; i < 100; i++) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, restart: start, stop: kill };
}
