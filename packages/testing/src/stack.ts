import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { databaseNameOf, dropDatabase, freshDatabase } from './database';
import { clearRedisPrefixes, freePort, startRedisCluster, startRedisServer, uniqueRedisPrefixes, type RedisServer } from './redis-server';
import { isErrorLine, peakRssByLabel, startProcess, waitForHttp, type ServiceProcess } from './service-process';

/** One service of a stack: its replicas share everything but their port. */
export interface StackService {
  /** A service's name (its compiled entry) or a script's path, as startProcess takes it. */
  service: string;
  /** 1 unless given. */
  replicas?: number;
  /** Each replica listens for HTTP: it gets a free port (PORT, HOST=127.0.0.1) and a `url`. */
  listens?: boolean;
  /** On top of the stack's `env`. */
  env?: Record<string, string>;
  /** After the stack's `nodeArgs`. */
  nodeArgs?: string[];
  /** startStack waits until each listening replica answers this path (`/healthz`, say) below 500. */
  readyPath?: string;
}

export interface StackOptions {
  /** Names the database (`<name>_<pid>_<tag>`) and the shared Redis's prefixes. */
  name: string;
  /** `migrations` (the default): migrated with the project's migrate CLI; `template`: cloned from the migrated test template. */
  database?: 'migrations' | 'template';
  /**
   * `shared` (the default): REDIS_URL (this process's, else the local one)
   * with prefixes unique to the stack, cleared at close; `own`: a private
   * redis-server with AOF, fsync on every write, so it can be killed and
   * restarted with its data; `cluster`: three such masters joined as a Cluster.
   */
  redis?: 'shared' | 'own' | 'cluster';
  services: Array<string | StackService>;
  /** Every process's environment, on top of this process's and the stack's DATABASE_URL, Redis and prefixes. */
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** `capture` (the default): each replica keeps its `tail` and `errors`; `inherit`: they print here. */
  output?: 'capture' | 'inherit';
  /** Non-JSON lines not counted as errors. */
  notErrors?: RegExp;
  /** A replica that exits on its own is started again after this many ms, as an orchestrator would; never when absent. */
  restartAfterMs?: number;
  /** Called with each process as it starts (a bench samples their CPU). */
  onStart?: (proc: ServiceProcess, replica: StackReplica) => void;
  /** Closed by `close`, after the processes (stand-ins, receivers the caller started). */
  closeWith?: Array<{ close: () => Promise<void> }>;
}

export interface StackReplica {
  service: string;
  index: number;
  /** The base URL of a listening replica. */
  url?: string;
  /** Its running process, null while it is down. */
  process: ServiceProcess | null;
  /** Its running process's child, null while it is down. */
  child: ChildProcess | null;
  starts: number;
  /** The last lines it printed, across restarts. */
  tail: string[];
  /** Every error line it printed (see isErrorLine), across restarts. */
  errors: string[];
  /** Times it exited on its own. */
  crashes: number;
  /** For each such exit, the exit and the last lines before it. */
  crashTails: string[][];
}

export interface Stack {
  databaseUrl: string;
  databaseName: string;
  /** `own` and `cluster`: the server, or the masters, each can be killed and restarted with its data; `shared`: none. */
  redisNodes: RedisServer[];
  /** What every process was given (this process's environment aside). */
  env: Record<string, string>;
  replicas: StackReplica[];
  /** The base URLs of `service`'s listening replicas. */
  urls: (service: string) => string[];
  start: (replica: StackReplica) => void;
  /** SIGKILL; resolves when it is gone. */
  kill: (replica: StackReplica) => Promise<void>;
  /** The largest peak RSS (MB) of each service's processes so far. */
  peakRss: () => Record<string, number>;
  /** SIGTERMs every process (SIGKILL after `graceMs`; at once when 0), closes `closeWith`, stops Redis, drops the database unless `keepDatabase`. */
  close: (opts?: { keepDatabase?: boolean; graceMs?: number }) => Promise<void>;
}

/**
 * The stack the tests, the soak and the bench run against: a fresh database,
 * Redis (shared with unique prefixes, its own server, or a Cluster), and the
 * services as processes, each replica startable and killable. Stand-ins are
 * the caller's (started before, given in `env`, closed through `closeWith`).
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const databaseUrl = await freshDatabase(opts.name, { from: opts.database ?? 'migrations' });
  const databaseName = databaseNameOf(databaseUrl);
  const mode = opts.redis ?? 'shared';
  const redisDir = mode === 'shared' ? null : mkdtempSync(path.join(tmpdir(), 'cowrie-stack-redis-'));
  const prefixes = mode === 'shared' ? uniqueRedisPrefixes(opts.name.replaceAll('_', '-')) : null;
  let redisNodes: RedisServer[] = [];
  let redisEnv: Record<string, string>;
  try {
    if (mode === 'cluster') {
      const cluster = await startRedisCluster({ dir: redisDir! });
      redisNodes = cluster.masters;
      redisEnv = { REDIS_CLUSTER_NODES: cluster.nodeList };
    } else if (mode === 'own') {
      redisNodes = [await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir!])];
      redisEnv = { REDIS_URL: redisNodes[0]!.url };
    } else redisEnv = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...prefixes };
  } catch (err) {
    await Promise.all(redisNodes.map((node) => node.stop()));
    await dropDatabase(databaseName);
    throw err;
  }
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, ...redisEnv, ...opts.env };

  const replicas: StackReplica[] = [];
  const settings = new Map<StackReplica, StackService>();
  for (const given of opts.services) {
    const service = typeof given === 'string' ? { service: given } : given;
    for (let index = 0; index < (service.replicas ?? 1); index++) {
      const replica: StackReplica = {
        service: service.service,
        index,
        process: null,
        child: null,
        starts: 0,
        tail: [],
        errors: [],
        crashes: 0,
        crashTails: [],
      };
      if (service.listens) replica.url = `http://127.0.0.1:${await freePort()}`;
      settings.set(replica, service);
      replicas.push(replica);
    }
  }

  /** Processes not yet gone, and the peak RSS of those that are, by label. */
  const live = new Set<ServiceProcess>();
  const peaks: Record<string, number> = {};
  const forget = (proc: ServiceProcess) => {
    if (!live.delete(proc)) return;
    peaks[proc.label] = Math.max(peaks[proc.label] ?? 0, proc.peakRssMb());
  };
  let closing = false;
  const start = (replica: StackReplica) => {
    const service = settings.get(replica)!;
    const port = replica.url ? new URL(replica.url).port : undefined;
    const proc = startProcess({
      entry: service.service,
      env: { ...env, ...service.env, ...(port ? { PORT: port, HOST: '127.0.0.1' } : {}) },
      nodeArgs: [...(opts.nodeArgs ?? []), ...(service.nodeArgs ?? [])],
      output: opts.output,
      keepOutput: false,
      notErrors: opts.notErrors,
      onLines: (lines) => {
        replica.tail.push(...lines);
        replica.tail.splice(0, Math.max(0, replica.tail.length - 80));
        replica.errors.push(...lines.filter((line) => isErrorLine(line, opts.notErrors)));
      },
    });
    opts.onStart?.(proc, replica);
    live.add(proc);
    void proc.exited.then(() => forget(proc));
    replica.process = proc;
    replica.child = proc.child;
    replica.starts += 1;
    proc.child.once('exit', (code, signal) => {
      if (replica.process !== proc || closing) return;
      replica.crashes += 1;
      replica.errors.push(`exited on its own (${signal ?? code})`);
      replica.crashTails.push([`exited on its own (${signal ?? code}) after start ${replica.starts}`, ...replica.tail.slice(-60)]);
      replica.process = null;
      replica.child = null;
      const after = opts.restartAfterMs;
      if (after !== undefined) setTimeout(() => !closing && !replica.process && start(replica), after);
    });
  };
  const down = async (replica: StackReplica, how: (proc: ServiceProcess) => Promise<void>) => {
    const proc = replica.process;
    replica.process = null;
    replica.child = null;
    if (!proc) return;
    await how(proc);
    forget(proc);
  };

  const stack: Stack = {
    databaseUrl,
    databaseName,
    redisNodes,
    env,
    replicas,
    urls: (service) => replicas.filter((r) => r.service === service && r.url).map((r) => r.url!),
    start,
    kill: (replica) => down(replica, (proc) => proc.kill()),
    peakRss: () => {
      const now = peakRssByLabel(live);
      for (const [label, mb] of Object.entries(peaks)) now[label] = Math.max(now[label] ?? 0, mb);
      return now;
    },
    async close({ keepDatabase = false, graceMs = 10_000 } = {}) {
      closing = true;
      await Promise.all(replicas.map((replica) => down(replica, (proc) => proc.stop(graceMs))));
      for (const closable of opts.closeWith ?? []) await closable.close();
      await Promise.all(redisNodes.map((node) => node.stop()));
      if (redisDir) rmSync(redisDir, { recursive: true, force: true });
      if (prefixes) await clearRedisPrefixes(prefixes, redisEnv.REDIS_URL);
      if (!keepDatabase) await dropDatabase(databaseName);
    },
  };
  for (const replica of replicas) start(replica);
  try {
    for (const replica of replicas) {
      const { readyPath } = settings.get(replica)!;
      if (replica.url && readyPath) await waitForHttp(`${replica.url}${readyPath}`);
    }
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
