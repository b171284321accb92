import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@cowrie/core';

const ROOT = path.join(__dirname, '../../..');

/** Output kept of a captured process (the newest, when it printed more). */
const MAX_OUTPUT_CHARS = 4_000_000;
/** Lines kept in a captured process's `tail`. */
const TAIL_LINES = 40;

export interface ProcessOptions {
  /**
   * A service's name (`gateway`: its compiled `services/gateway/dist/main.js`,
   * as production runs it; build first), or a script's path from the
   * repository root (a `.ts` one runs through tsx).
   */
  entry: string;
  /** On top of this process's environment. */
  env?: Record<string, string>;
  /** Node and V8 flags (`--cpu-prof`, `--trace-gc`, …). */
  nodeArgs?: string[];
  /** `capture` (the default): kept for `output()`, `tail` and `errors`; `inherit`: written to this process's stdout and stderr. */
  output?: 'capture' | 'inherit';
  /** Keep everything it printed for `output()` (the default); `tail` and `errors` are kept either way. */
  keepOutput?: boolean;
  /** Non-JSON lines of a captured process that are not errors (a client library's own notices). */
  notErrors?: RegExp;
  /** Called with each chunk's lines, captured or not counted. */
  onLines?: (lines: string[]) => void;
}

export interface ServiceProcess {
  /** `gateway` for a service, the file's name for a script (`bench/baseline-server.ts` → `baseline-server`). */
  label: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Everything it printed so far (captured output only). */
  output: () => string;
  /** Its last lines (captured output only). */
  tail: string[];
  /** Its error and fatal log lines, and any line not JSON (a crash's stack) but `notErrors` (captured output only). */
  errors: string[];
  /** Its peak resident set size so far, in MB (the last seen once it has exited). */
  peakRssMb: () => number;
  /** SIGTERM, then SIGKILL after `graceMs` (10 s; at once when 0); resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>;
  /** SIGKILL; resolves once it has exited. */
  kill: () => Promise<void>;
}

/** Resident set size of a process in MB: VmHWM (the peak so far) or VmRSS (now); 0 once it is gone. */
function rssMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return 0;
  }
}

/** Peak resident set size of a process (VmHWM), in MB. */
export const peakRssMb = (pid: number) => rssMb(pid, 'VmHWM');
/** Resident set size of a process now (VmRSS), in MB. */
export const currentRssMb = (pid: number) => rssMb(pid, 'VmRSS');

/** An error or fatal JSON log line, or a line that is not JSON (a crash's stack, a runtime warning). */
export const isErrorLine = (line: string, notErrors?: RegExp) => /"level":(50|60)/.test(line) || (!line.startsWith('{') && !(notErrors?.test(line) ?? false));

const labelOf = (entry: string) =>
  !entry.includes('/') ? entry : entry.startsWith('services/') ? entry.split('/')[1]! : path.basename(entry).replace(/\.[jt]s$/, '');

/**
 * Starts a service or a script as its own process: the one process starter
 * of the tests, the soak and the bench.
 */
export function startProcess(opts: ProcessOptions): ServiceProcess {
  const entry = opts.entry.includes('/') ? opts.entry : path.join('services', opts.entry, 'dist/main.js');
  if (!existsSync(path.join(ROOT, entry))) throw new Error(`${entry} is missing${entry.endsWith('/dist/main.js') ? ': run npm run build first' : ''}`);
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const capture = (opts.output ?? 'capture') === 'capture';
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...loader, entry], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
  });
  let output = '';
  let peak = 0;
  const samplePeak = () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) peak = Math.max(peak, peakRssMb(child.pid));
    return peak;
  };
  const handle: ServiceProcess = {
    label: labelOf(opts.entry),
    child,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    output: () => output,
    tail: [],
    errors: [],
    peakRssMb: samplePeak,
    stop: (graceMs = 10_000) => (graceMs > 0 ? end('SIGTERM', graceMs) : end('SIGKILL', 0)),
    kill: () => end('SIGKILL', 0),
  };
  const end = async (signal: NodeJS.Signals, graceMs: number) => {
    samplePeak();
    if (child.exitCode !== null || child.signalCode !== null) return;
    const killer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs);
    killer?.unref();
    child.kill(signal);
    await handle.exited;
    clearTimeout(killer);
  };
  if (capture) {
    const keep = (chunk: Buffer) => {
      const text = String(chunk);
      if (opts.keepOutput ?? true) output = (output + text).slice(-MAX_OUTPUT_CHARS);
      const lines = text.split('\n').filter(Boolean);
      handle.tail.push(...lines);
      handle.tail.splice(0, Math.max(0, handle.tail.length - TAIL_LINES));
      handle.errors.push(...lines.filter((line) => isErrorLine(line, opts.notErrors)));
      opts.onLines?.(lines);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }
  return handle;
}

/**
 * A compiled service as its own process on a test env's database, Redis and
 * prefixes (`NODE_ENV=test`, info-level JSON logs, captured), for tests that
 * stop or kill it as an orchestrator would: startProcess with a test env's
 * settings, `extra` on top.
 */
export function spawnServiceProcess(config: Config, service: string, extra: Record<string, string> = {}): ServiceProcess {
  return startProcess({
    entry: service,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      DATABASE_URL: config.DATABASE_URL,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: config.REDIS_URL,
      QUEUE_PREFIX: config.QUEUE_PREFIX,
      REDIS_KEY_PREFIX: config.REDIS_KEY_PREFIX,
      ...extra,
    },
  });
}

/** The largest peak RSS (MB) of each label's processes. */
export function peakRssByLabel(processes: Iterable<ServiceProcess>): Record<string, number> {
  const peaks: Record<string, number> = {};
  for (const p of processes) peaks[p.label] = Math.max(peaks[p.label] ?? 0, p.peakRssMb());
  return peaks;
}

/** Resolves once `url` answers below 500 (a service is up); throws after `timeoutMs`. */
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
