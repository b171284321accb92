import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connect, createServer } from 'node:net';
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

/**
 * Whether a Redis on a loopback port answers PING (over a plain socket: an
 * ioredis client that met a refused connection kept a timer that held a
 * test process open).
 */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += String(chunk);
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

export interface RedisServer {
  port: number;
  url: string;
  /** The redis-server's process id while it runs (a bench counts its CPU). */
  readonly pid: number | undefined;
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
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', ...args],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await answersPing(port)) return;
      await new Promise((r) => setTimeout(r, 50));
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
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
    kill,
    restart: start,
    stop: kill,
  };
}

export interface RedisCluster {
  /** `host:port,host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  nodeList: string;
  /** One per master, each can be killed and restarted (it keeps its slots, its AOF and its nodes.conf). */
  masters: RedisServer[];
  stop: () => Promise<void>;
}

/**
 * A Redis Cluster of `masters` private redis-servers on free loopback ports,
 * each with AOF and its own directory under `dir`, joined with
 * `redis-cli --cluster create` (no replicas: killing a master makes its slots
 * unavailable until it is back).
 */
export async function startRedisCluster(opts: { dir: string; masters?: number }): Promise<RedisCluster> {
  const masters: RedisServer[] = [];
  for (let i = 0; i < (opts.masters ?? 3); i++) {
    const dir = path.join(opts.dir, `node-${i}`);
    mkdirSync(dir, { recursive: true });
    masters.push(
      await startRedisServer([
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(await freePort()),
        '--cluster-announce-ip',
        '127.0.0.1',
        '--appendonly',
        'yes',
        '--dir',
        dir,
      ]),
    );
  }
  const nodes = masters.map((m) => `127.0.0.1:${m.port}`);
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  for (const master of masters) {
    const probe = new Redis({ port: master.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    for (let i = 0; i < 200 && !String(await probe.call('CLUSTER', 'INFO')).includes('cluster_state:ok'); i++) await new Promise((r) => setTimeout(r, 50));
    probe.disconnect();
  }
  return { nodeList: nodes.join(','), masters, stop: async () => void (await Promise.all(masters.map((m) => m.stop()))) };
}

export interface RedisPrefixes {
  REDIS_KEY_PREFIX: string;
  QUEUE_PREFIX: string;
}

/**
 * Redis key and queue prefixes unique to one run on a shared Redis
 * (`<name>-<tag>:` and `{<name>-<tag>}`): no other run's
 * workers see its jobs, and no job kept from an earlier run (BullMQ keeps
 * completed jobs, and job ids come from row ids that restart on a fresh
 * database) is mistaken for one of this run's. clearRedisPrefixes removes them.
 */
export function uniqueRedisPrefixes(name: string): RedisPrefixes {
  const tag = randomBytes(4).toString('hex');
  return { REDIS_KEY_PREFIX: `${name}-${tag}:`, QUEUE_PREFIX: `{${name}-${tag}}` };
}

/** Deletes every key of a run's prefixes on `redisUrl` (the shared Redis by default), once its processes have stopped. */
export async function clearRedisPrefixes(prefixes: RedisPrefixes, redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    for (const prefix of [prefixes.REDIS_KEY_PREFIX, prefixes.QUEUE_PREFIX]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
