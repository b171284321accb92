import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import { Client } from 'pg';

const root = path.resolve(__dirname, '..');

export interface ScenarioResult {
  scenario: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  baseline: string;
  baseline_rps: number;
  ratio: number;
  peak_rss_mb: number;
  [extra: string]: unknown;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Drops and re-creates a database, then migrates it with the project's tool. */
const baseDatabaseUrl = () => new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie');

/** Drops a database of this Postgres, connections and all. */
export async function dropDatabase(name: string): Promise<void> {
  const admin = baseDatabaseUrl();
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

export async function freshDatabase(name: string): Promise<string> {
  await dropDatabase(name);
  const url = baseDatabaseUrl();
  url.pathname = `/${name}`;
  const migrated = spawnSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url.toString() },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migrating ${name} failed: ${migrated.stderr}`);
  return url.toString();
}

export interface BenchRedisEnv {
  REDIS_KEY_PREFIX: string;
  QUEUE_PREFIX: string;
}

/**
 * Redis key and queue prefixes of one scenario run, unique to it: no other
 * engineer's workers see its jobs, and no job kept from an earlier run (BullMQ
 * keeps completed jobs, and job ids come from row ids that restart on a fresh
 * database) is mistaken for one of this run's. clearRedisPrefixes removes them.
 */
export function benchRedisEnv(): BenchRedisEnv {
  const tag = randomBytes(4).toString('hex');
  return { REDIS_KEY_PREFIX: `cowrie-bench-${tag}:`, QUEUE_PREFIX: `{cowrie-bench-${tag}}` };
}

/** Deletes every key of a run's prefixes (call it once its processes have stopped). */
export async function clearRedisPrefixes(env: BenchRedisEnv): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  try {
    for (const prefix of [env.REDIS_KEY_PREFIX, env.QUEUE_PREFIX]) {
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

/** The ENCRYPTION_KEY startProcess gives every process (the bench seals endpoint secrets with it). */
// Fresh per run: production refuses published or predictable secrets.
export const BENCH_ENCRYPTION_KEY = randomBytes(32).toString('hex');
const BENCH_SESSION_SECRET = randomBytes(32).toString('hex');

/** Every process startProcess started and stop has not stopped yet, by its label. */
const running = new Map<ChildProcess, string>();
/** Peak RSS (MB) of each label's processes that stopped since the last takePeakRss. */
let peaks: Record<string, number> = {};

/** `services/gateway/dist/main.js` → gateway; `bench/baseline-server.ts` → baseline-server. */
const labelOf = (entry: string) => (entry.startsWith('services/') ? entry.split('/')[1]! : path.basename(entry).replace(/\.[jt]s$/, ''));

/**
 * Starts a process to measure: a compiled service (`services/<name>/dist/main.js`,
 * as production runs it; `npm run bench` builds first), or a TypeScript entry
 * (through tsx). Its peak RSS is recorded when `stop` stops it.
 */
export function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of every measured process there.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_NODE_ARGS="--trace-gc ..." passes Node/V8 flags to every measured process.
  const extra = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...profile, ...extra, ...loader, entry], {
    cwd: root,
    // Production settings on the sandbox rails and providers, as a staging deployment runs (nothing leaves the machine).
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      NODE_ENV: 'production',
      ALLOW_SANDBOX_IN_PRODUCTION: 'true',
      JWT_SECRET: BENCH_SESSION_SECRET,
      ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  running.set(child, labelOf(entry));
  return child;
}

/** The peak RSS (MB) of every process stopped since the last call, the largest per label; then forgets them. */
export function takePeakRss(): Record<string, number> {
  const taken = peaks;
  peaks = {};
  return taken;
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Resident set size of a process in MB: VmHWM (the peak so far) or VmRSS (now). */
function rssMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Peak resident set size of a process (VmHWM), in MB. */
export const peakRssMb = (pid: number) => rssMb(pid, 'VmHWM');
/** Resident set size of a process now (VmRSS), in MB. */
export const currentRssMb = (pid: number) => rssMb(pid, 'VmRSS');

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  /** Builds each request (unique idempotency keys and the like). */
  setupRequest?: autocannon.Options['setupClient'];
  requests?: autocannon.Request[];
}

export async function load(opts: LoadOptions) {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? 50,
    duration: opts.durationSeconds ?? 10,
    requests: opts.requests,
    setupClient: opts.setupRequest,
  });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  return {
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    total: result.requests.total,
    non2xx,
  };
}

/**
 * Brings a scenario's database to a steady state before it is measured: the
 * planner's statistics cover the rows the setup wrote, dead rows are gone,
 * and the dirty pages of earlier work (this scenario's setup and warm-up, and
 * the scenarios before it) are written now by a CHECKPOINT rather than in the
 * middle of the measured seconds.
 */
export async function settleDatabase(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
    // CHECKPOINT needs a superuser or pg_checkpoint; without either, the run goes on.
    await client.query('CHECKPOINT').catch((err: Error) => console.warn(`bench: no CHECKPOINT before measuring (${err.message})`));
  } finally {
    await client.end();
  }
}

/**
 * The gateway against the bare express route in the same run, both warmed up
 * first (JIT, pools, workers), the database settled after the warm-up: the
 * fields every such scenario reports. Throws when a measured gateway response
 * was not 2xx.
 */
export async function measureAgainstBareExpress(opts: {
  gateway: LoadOptions;
  barePort: number;
  connections: number;
  durationSeconds: number;
  databaseUrl: string;
}) {
  const bareUrl = `http://127.0.0.1:${opts.barePort}/bare`;
  // Five seconds of warm-up, so slower machines too start the measured seconds in a steady state.
  await load({ ...opts.gateway, connections: opts.connections, durationSeconds: 5 });
  await settleDatabase(opts.databaseUrl);
  await load({ url: bareUrl, durationSeconds: 2 });
  const baseline = await load({ url: bareUrl, connections: opts.connections, durationSeconds: opts.durationSeconds });
  const measured = await load({ ...opts.gateway, connections: opts.connections, durationSeconds: opts.durationSeconds });
  if (measured.non2xx > 0) throw new Error(`${measured.non2xx} of ${measured.total} gateway responses were not 2xx`);
  return {
    rps: measured.rps,
    p50_ms: measured.p50_ms,
    p99_ms: measured.p99_ms,
    baseline: 'bare_express',
    baseline_rps: baseline.rps,
    ratio: ratioOf(measured.rps, baseline.rps),
    connections: opts.connections,
    duration_s: opts.durationSeconds,
    requests: measured.total,
  };
}

/** The p-th percentile (0..100) of a list of numbers, nearest rank; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const ratioOf = (measured: number, baseline: number) => (baseline > 0 ? Math.round((measured / baseline) * 100) / 100 : 0);

export function writeResult(result: { scenario: string; [field: string]: unknown }) {
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  writeFileSync(path.join(root, 'bench/results', `${result.scenario}.json`), `${JSON.stringify(result, null, 2)}\n`);
}

export function stop(child: ChildProcess): Promise<void> {
  const label = running.get(child);
  running.delete(child);
  if (label && child.exitCode === null && child.pid) peaks[label] = Math.max(peaks[label] ?? 0, peakRssMb(child.pid));
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
