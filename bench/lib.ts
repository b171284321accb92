import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { Client } from 'pg';

export const root = path.resolve(__dirname, '..');

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
export async function freshDatabase(name: string): Promise<string> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie');
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const migrated = spawnSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url.toString() },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migrating ${name} failed: ${migrated.stderr}`);
  return url.toString();
}

/** Starts a service (`services/<name>/src/main.ts`) or any TS entry as a child process. */
export function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', NODE_ENV: 'production', JWT_SECRET: 'bench-'.repeat(8), ENCRYPTION_KEY: 'ab'.repeat(32), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
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

/** Peak resident set size of a process (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

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

export function writeResult(result: ScenarioResult) {
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  writeFileSync(path.join(root, 'bench/results', `${result.scenario}.json`), `${JSON.stringify(result, null, 2)}\n`);
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
