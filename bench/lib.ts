import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  clearRedisPrefixes,
  createdDatabases,
  currentRssMb,
  databaseUrlOf,
  dropCreatedDatabases,
  emptyDatabase,
  freePort,
  freshDatabase,
  peakRssByLabel,
  peakRssMb,
  startProcess as startTestingProcess,
  startRedisServer,
  startStack,
  uniqueRedisPrefixes,
  waitForHttp,
  type RedisPrefixes,
  type ServiceProcess,
  type Stack,
  type StackService,
} from '@cowrie/testing';

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

// The stack's parts come from @cowrie/testing (the one harness of the tests, the soak and the bench); the scenarios take them from here.
export { currentRssMb, emptyDatabase, freePort, freshDatabase, peakRssMb, waitForHttp };

/** Drops every database this process created (call it once a scenario's processes have stopped). */
export const dropBenchDatabases = dropCreatedDatabases;

export type BenchRedisEnv = RedisPrefixes;

/** Redis key and queue prefixes unique to one scenario run (uniqueRedisPrefixes); clearRedisPrefixes removes them. */
export const benchRedisEnv = (): BenchRedisEnv => uniqueRedisPrefixes('cowrie-bench');

export { clearRedisPrefixes };

/** The ENCRYPTION_KEY startProcess gives every process (the bench seals endpoint secrets with it). */
// Fresh per run: production refuses published or predictable secrets.
export const BENCH_ENCRYPTION_KEY = randomBytes(32).toString('hex');
const BENCH_SESSION_SECRET = randomBytes(32).toString('hex');

/** Every process startProcess started and stop has not stopped yet (the CPU sampler reads their pids and labels). */
const running = new Map<ChildProcess, ServiceProcess>();
/** The processes stopped since the last takePeakRss. */
let stopped: ServiceProcess[] = [];

/** The Node flags of every measured process: BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each there; BENCH_NODE_ARGS="--trace-gc ..." adds its own. */
function benchNodeArgs(): string[] {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return [...profile, ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
}

/** Production settings on the sandbox rails and providers, as a staging deployment runs (nothing leaves the machine). */
const benchEnv = () => ({
  LOG_LEVEL: 'warn',
  LOG_FORMAT: 'json',
  NODE_ENV: 'production',
  ALLOW_SANDBOX_IN_PRODUCTION: 'true',
  JWT_SECRET: BENCH_SESSION_SECRET,
  ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
});

/**
 * Starts a process to measure (startProcess of @cowrie/testing): a compiled
 * service (`services/<name>/dist/main.js`, as production runs it; `npm run
 * bench` builds first), or a TypeScript entry (through tsx), with the bench's
 * settings and Node flags, its output on this process's. Its peak RSS is
 * recorded when `stop` stops it.
 */
export function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  const measured = startTestingProcess({ entry, nodeArgs: benchNodeArgs(), output: 'inherit', env: { ...benchEnv(), ...env } });
  running.set(measured.child, measured);
  return measured.child;
}

/**
 * A scenario's stack (startStack of @cowrie/testing): a fresh migrated
 * database, the bench's Redis with prefixes of its own, and `services` as
 * processes to measure, with the bench's settings and Node flags, their
 * output on this process's. `close` stops them (their peak RSS kept for
 * takePeakRss) and drops the database and the prefixes' keys.
 */
export async function startBenchStack(opts: { name: string; services: StackService[]; env?: Record<string, string> }): Promise<Stack> {
  const stack = await startStack({
    ...opts,
    env: { ...benchEnv(), ...opts.env },
    nodeArgs: benchNodeArgs(),
    output: 'inherit',
    onStart: (measured) => running.set(measured.child, measured),
  });
  return {
    ...stack,
    close: async (closeOpts) => {
      const measured = stack.replicas.flatMap((r) => (r.process ? [r.process] : []));
      await stack.close(closeOpts);
      for (const one of measured) running.delete(one.child);
      stopped.push(...measured);
    },
  };
}

/** The peak RSS (MB) of every process stopped since the last call, the largest per label; then forgets them. */
export function takePeakRss(): Record<string, number> {
  const taken = peakRssByLabel(stopped);
  stopped = [];
  return taken;
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

// The open-loop load generator of the at-rate runs: requests leave on a
// schedule fixed in advance (Poisson arrivals at the offered rate, as
// `pgbench --rate` schedules its transactions), whether or not earlier ones
// have been answered, and each request's latency runs from its scheduled send
// time to the end of its response. A slow answer therefore delays nothing
// else, and the time a request would have waited behind it is counted instead
// of omitted: no coordinated omission.
//
// Why not autocannon's `overallRate`: autocannon 8 gives each connection
// rate ÷ connections requests per second, sends them back to back on that
// connection (each after the previous answer) at the start of every second,
// then pauses until the next second. That is a closed loop in bursts, and
// its "correction" (recordValueWithExpectedInterval with Math.ceil(1 / rate),
// i.e. an expected interval of 1 ms whatever the rate) adds a synthetic
// sample for every millisecond of every answer slower than 1 ms.
//
// Requests go out over node:http keep-alive connections, opened as needed up
// to AT_RATE_MAX_CONNECTIONS (at 1,000/s, a second of answers in flight
// before a request waits for a connection, and that wait is counted too).
// node:http rather than undici: no new dependency, and at these rates its
// cost per request is small beside the service's (the baseline pays it too).
// The generator runs in the bench process; Node's timers fire at 1 ms
// resolution, so up to about 1 ms of every figure, the baseline's included,
// is the generator's own. The send lag (`generator_*_send_lag_ms` in the
// results) says how late it sent: far above a few ms, the generator or the
// machine could not keep the schedule, and the figures say so too.

//
// The generator stands in for clients on other machines, but here it shares
// two cores with the services, Postgres and Redis: on a saturated machine it
// was itself scheduled late (p99 send lag 6-22 ms), and a run that measures
// its generator has no latency result. While it drives a run its thread is
// given a higher scheduling priority (nice GENERATOR_NICE, as root can; the
// services started before keep theirs, and the priority goes back after the
// run, so nothing started later inherits it). Its CPU is not counted in any
// figure either way. `generator_nice` in the results says what it ran at.

/** The generator's nice value while it drives a run (0 where the process may not raise its priority). */
const GENERATOR_NICE = -10;
let generatorNice = 0;

/** Runs `fn` (a generator's schedule) at GENERATOR_NICE when this process may, else at its own priority. */
export async function asGenerator<T>(fn: () => Promise<T>): Promise<T> {
  const before = os.getPriority();
  try {
    os.setPriority(GENERATOR_NICE);
    generatorNice = GENERATOR_NICE;
  } catch {
    generatorNice = before;
  }
  try {
    return await fn();
  } finally {
    if (generatorNice !== before) os.setPriority(before);
  }
}

const AT_RATE_MAX_CONNECTIONS = 1000;
/** A request not answered within this long counts as an error. */
const AT_RATE_TIMEOUT_MS = 30_000;

/** One request of an at-rate run, on the origin the run targets. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface AtRateOptions {
  /** `http://host:port` */
  origin: string;
  /** Offered requests per second. */
  rate: number;
  /** Measured seconds, after `warmupSeconds` of the same schedule that are not recorded. */
  durationSeconds: number;
  warmupSeconds?: number;
  /** Builds each request (unique bodies, paths and the like). */
  next: () => HttpRequest;
}

/** p50/p99 at a fixed rate: what every at-rate baseline reports. */
export interface LatencyAtRate {
  p50_ms: number;
  p99_ms: number;
}

export interface AtRateRun extends LatencyAtRate {
  rate_rps: number;
  /** Responses received within the measured seconds, per second. */
  achieved_rps: number;
  max_ms: number;
  /** When the slowest measured request was scheduled: seconds into the measured window, and the wall clock. */
  max_at_offset_s: number;
  max_at: string;
  /** Requests scheduled within the measured seconds. */
  requests: number;
  /** Every request sent, the warm-up's included (what the processes worked on throughout). */
  sent: number;
  /** Measured requests answered other than 2xx, failed, or not answered in time. */
  non2xx: number;
  /** How late the generator sent its requests against the schedule: the 99th percentile and the latest. */
  p99_send_lag_ms: number;
  max_send_lag_ms: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Drives `opts.next()` requests at `opts.rate` per second, open loop, as the generator (see above). */
export function loadAtRate(opts: AtRateOptions): Promise<AtRateRun> {
  return asGenerator(() => driveAtRate(opts));
}

async function driveAtRate(opts: AtRateOptions): Promise<AtRateRun> {
  const target = new URL(opts.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: AT_RATE_MAX_CONNECTIONS, scheduling: 'lifo' });
  const meanGapMs = 1000 / opts.rate;
  // Exponential gaps: Poisson arrivals.
  const gap = () => -Math.log(1 - Math.random()) * meanGapMs;

  const started = performance.now() + 20;
  const measureFrom = started + (opts.warmupSeconds ?? 2) * 1000;
  const measureUntil = measureFrom + opts.durationSeconds * 1000;
  const latencies: number[] = [];
  let slowest = { ms: -1, scheduledAt: 0 };
  let requests = 0;
  let sent = 0;
  let answeredInWindow = 0;
  let failed = 0;
  const lags: number[] = [];
  let inFlight = 0;
  let scheduling = true;
  let finished: () => void = () => undefined;
  const allAnswered = new Promise<void>((resolve) => (finished = resolve));

  const settle = (scheduledAt: number, ok: boolean) => {
    const now = performance.now();
    inFlight -= 1;
    if (scheduledAt >= measureFrom) {
      if (ok) {
        latencies.push(now - scheduledAt);
        if (now - scheduledAt > slowest.ms) slowest = { ms: now - scheduledAt, scheduledAt };
      } else failed += 1;
      if (now <= measureUntil) answeredInWindow += 1;
    }
    if (!scheduling && inFlight === 0) finished();
  };

  const send = (scheduledAt: number) => {
    const measured = scheduledAt >= measureFrom;
    if (measured) {
      requests += 1;
      lags.push(performance.now() - scheduledAt);
    }
    const { method, path, headers = {}, body } = opts.next();
    sent += 1;
    inFlight += 1;
    let done = false;
    const once = (ok: boolean) => {
      if (done) return;
      done = true;
      settle(scheduledAt, ok);
    };
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
        res.on('end', () => once(ok));
        res.on('error', () => once(false));
        res.resume();
      },
    );
    req.setTimeout(AT_RATE_TIMEOUT_MS, () => req.destroy(new Error('timed out')));
    req.on('error', () => once(false));
    req.end(body);
  };

  let nextAt = started;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (nextAt <= now && nextAt < measureUntil) {
        send(nextAt);
        nextAt += gap();
      }
      if (nextAt < measureUntil) setTimeout(tick, nextAt - performance.now());
      else resolve();
    };
    setTimeout(tick, started - performance.now());
  });
  scheduling = false;
  if (inFlight > 0) await allAnswered;
  agent.destroy();

  return {
    rate_rps: opts.rate,
    achieved_rps: Math.round(answeredInWindow / opts.durationSeconds),
    p50_ms: round2(percentile(latencies, 50)),
    p99_ms: round2(percentile(latencies, 99)),
    max_ms: round2(percentile(latencies, 100)),
    max_at_offset_s: round2((slowest.scheduledAt - measureFrom) / 1000),
    max_at: new Date(performance.timeOrigin + slowest.scheduledAt).toISOString(),
    requests,
    sent,
    non2xx: failed,
    p99_send_lag_ms: round2(percentile(lags, 99)),
    max_send_lag_ms: round2(percentile(lags, 100)),
  };
}

/** CPU time (user + system) a process has used so far, in ms; 0 once it is gone. */
function cpuMsOfPid(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th (in clock ticks of 10 ms).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The application_name of connections the bench itself writes through (a scenario's generator): their backends' CPU is not the operation's. */
export const GENERATOR_APPLICATION_NAME = 'cowrie-bench-generator';

/** The bench's own redis-server (startBenchRedis): every scenario's services use it, so its CPU is theirs alone. */
let benchRedis: { pid: number; url: string; stop: () => Promise<void> } | undefined;

/**
 * Starts a private redis-server for the whole bench run and points
 * REDIS_URL at it (startProcess passes it on; startBenchStack puts its prefixes on it): the Redis CPU a scenario
 * reports is then its own, whatever else uses the machine's shared Redis.
 */
export async function startBenchRedis(): Promise<void> {
  const server = await startRedisServer();
  if (!server.pid) throw new Error(`the bench's redis-server on port ${server.port} has no process`);
  benchRedis = { pid: server.pid, url: server.url, stop: server.stop };
  process.env.REDIS_URL = server.url;
}

export async function stopBenchRedis(): Promise<void> {
  await benchRedis?.stop();
  benchRedis = undefined;
}

/**
 * Calls of each command on the bench's Redis so far (`INFO commandstats`):
 * the commands a script runs count each, beside the EVALSHA that ran them.
 * Empty without the bench's Redis.
 */
async function redisCallsSoFar(): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  if (!benchRedis) return calls;
  const redis = new Redis(benchRedis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const line of (await redis.info('commandstats')).split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
      if (match) calls.set(match[1]!, Number(match[2]));
    }
  } finally {
    redis.disconnect();
  }
  return calls;
}

/**
 * Postgres's processes that work for this run: the backends connected to a
 * database this run created (but the generator's own, by application name),
 * and the server's background processes (WAL writer, checkpointer, background
 * writer, autovacuum), which on a quiet machine work for the run alone.
 */
async function postgresPids(): Promise<number[]> {
  const client = new Client({ connectionString: databaseUrlOf('postgres') });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE (datname = ANY($1::text[]) AND coalesce(application_name, '') <> $2)
           OR (datname IS NULL AND backend_type <> 'client backend')
           OR backend_type = 'autovacuum worker'`,
      [createdDatabases(), GENERATOR_APPLICATION_NAME],
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** Postgres's checkpoints so far (timed and requested) and the ms they spent writing and syncing (pg_stat_bgwriter). */
async function checkpointTotals(): Promise<{ checkpoints: number; write_ms: number; sync_ms: number }> {
  const client = new Client({ connectionString: databaseUrlOf('postgres') });
  await client.connect();
  try {
    const { rows } = await client.query<{ checkpoints: string; write_ms: number; sync_ms: number }>(
      'SELECT checkpoints_timed + checkpoints_req AS checkpoints, checkpoint_write_time AS write_ms, checkpoint_sync_time AS sync_ms FROM pg_stat_bgwriter',
    );
    const row = rows[0]!;
    return { checkpoints: Number(row.checkpoints), write_ms: Number(row.write_ms), sync_ms: Number(row.sync_ms) };
  } finally {
    await client.end();
  }
}

/** CPU ms used so far by each process of the run, keyed `label:pid`: the measured processes, Postgres's (postgresPids) and the bench's Redis. */
async function cpuMsByPid(): Promise<Map<string, number>> {
  const used = new Map<string, number>();
  for (const [child, { label }] of running) if (child.pid) used.set(`${label}:${child.pid}`, cpuMsOfPid(child.pid));
  for (const pid of await postgresPids()) used.set(`postgres:${pid}`, cpuMsOfPid(pid));
  if (benchRedis) used.set(`redis-server:${benchRedis.pid}`, cpuMsOfPid(benchRedis.pid));
  return used;
}

/**
 * Runs `work` (a load of `requests()` requests) and answers the CPU time each
 * process spent per request meanwhile, in ms, by label: what a request costs,
 * which varies far less between machines and runs than a saturation figure.
 * A process that started during the run counts from zero; a Postgres backend
 * that ended during it is not counted (the services keep theirs in pools).
 */
export async function cpuPerRequest<T>(
  work: () => Promise<T>,
  requests: (result: T) => number,
): Promise<{
  result: T;
  cpuMsPerRequest: Record<string, number>;
  redisCallsPerRequest: Record<string, number>;
  timeline: CpuSample[];
  checkpoints: CheckpointsDuring;
}> {
  const checkpointsBefore = await checkpointTotals();
  const redisBefore = await redisCallsSoFar();
  const before = await cpuMsByPid();
  // Every TIMELINE_STEP_MS, the CPU each process has used so far: what every process was doing during a stall.
  // Postgres's pids are looked up again every second: a pool opens backends during the run.
  const timeline: CpuSample[] = [];
  let keys = [...before.keys()];
  let refreshing = false;
  // Each pid counts from when the sampler first saw it, so a backend found mid-run adds only what it uses after.
  const firstSeen = new Map<string, number>();
  const sample = () => {
    const used: Record<string, number> = {};
    for (const key of keys) {
      const label = key.slice(0, key.lastIndexOf(':'));
      const ms = cpuMsOfPid(Number(key.slice(key.lastIndexOf(':') + 1)));
      if (!firstSeen.has(key)) firstSeen.set(key, ms);
      used[label] = (used[label] ?? 0) + ms - firstSeen.get(key)!;
    }
    timeline.push({ at: Date.now(), used });
    if (timeline.length % 10 === 0 && !refreshing) {
      refreshing = true;
      void postgresPids()
        .then((pids) => (keys = [...keys.filter((k) => !k.startsWith('postgres:')), ...pids.map((pid) => `postgres:${pid}`)]))
        .catch(() => undefined)
        .finally(() => (refreshing = false));
    }
  };
  sample();
  const sampler = setInterval(sample, TIMELINE_STEP_MS);
  const result = await work().finally(() => clearInterval(sampler));
  const after = await cpuMsByPid();
  const redisAfter = await redisCallsSoFar();
  const checkpointsAfter = await checkpointTotals();
  // A checkpoint's sync competes with every commit's WAL flush: one ending mid-run can hold every write in flight.
  const checkpoints = {
    postgres_checkpoints_during_run: checkpointsAfter.checkpoints - checkpointsBefore.checkpoints,
    postgres_checkpoint_write_ms_during_run: Math.round(checkpointsAfter.write_ms - checkpointsBefore.write_ms),
    postgres_checkpoint_sync_ms_during_run: Math.round(checkpointsAfter.sync_ms - checkpointsBefore.sync_ms),
  };
  const n = Math.max(1, requests(result));
  const byLabel: Record<string, number> = {};
  for (const [key, ms] of after) {
    const label = key.slice(0, key.lastIndexOf(':'));
    byLabel[label] = (byLabel[label] ?? 0) + Math.max(0, ms - (before.get(key) ?? 0));
  }
  const cpuMsPerRequest = Object.fromEntries(
    Object.entries(byLabel)
      .filter(([, ms]) => ms > 0)
      .map(([label, ms]) => [label, Math.round((ms / n) * 1000) / 1000]),
  );
  return { result, cpuMsPerRequest, redisCallsPerRequest: callsPerRequest(redisBefore, redisAfter, n), timeline, checkpoints };
}

/** Each command's calls during a run per request, to two decimals (those under 0.005 left out), the most called first, after their sum as `total`. */
function callsPerRequest(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, requests: number): Record<string, number> {
  const perRequest = [...after]
    .map(([command, calls]) => [command, (calls - (before.get(command) ?? 0)) / requests] as const)
    .filter(([command, calls]) => calls >= 0.005 && command !== 'info')
    .sort((a, b) => b[1] - a[1]);
  if (perRequest.length === 0) return {};
  const total = perRequest.reduce((sum, [, calls]) => sum + calls, 0);
  return { total: round2(total), ...Object.fromEntries(perRequest.map(([command, calls]) => [command, round2(calls)])) };
}

/** Checkpoints Postgres finished while a measurement ran (any database's: the server has one checkpointer). */
export interface CheckpointsDuring {
  postgres_checkpoints_during_run: number;
  postgres_checkpoint_write_ms_during_run: number;
  postgres_checkpoint_sync_ms_during_run: number;
}

const TIMELINE_STEP_MS = 100;

/** CPU ms used so far by each label (the processes known when the measurement began), at a wall-clock time. */
export interface CpuSample {
  at: number;
  used: Record<string, number>;
}

/**
 * The CPU each process used in every TIMELINE_STEP_MS step from a second
 * before `at` (an ISO time: the slowest request's send) to a second after:
 * a stall with every process idle is a wait (a lock, a timer), one with a
 * process at 100 ms per step is that process's own work (a GC, a loop).
 * Clock ticks are 10 ms, so each figure is ±10 ms.
 */
export function cpuAround(timeline: readonly CpuSample[], at: string | null | undefined): Array<Record<string, number>> {
  if (!at) return [];
  const centre = Date.parse(at);
  const steps: Array<Record<string, number>> = [];
  for (let i = 1; i < timeline.length; i++) {
    const [from, to] = [timeline[i - 1]!, timeline[i]!];
    if (to.at <= centre - 1000 || from.at >= centre + 1000) continue;
    const step: Record<string, number> = { offset_ms: to.at - centre };
    for (const label of Object.keys(to.used)) step[label] = Math.max(0, to.used[label]! - (from.used[label] ?? 0));
    steps.push(step);
  }
  return steps;
}

/** The bare express server's label (bench/baseline-server.ts). */
const BARE_LABEL = 'baseline-server';

/**
 * The rate at which the bare express route's CPU per request is measured for
 * cpu_ratio, whatever the scenario's own rate: one yardstick for every
 * scenario. (Per request, an idle-ish process costs more at a low rate: in one
 * run here bare express took 0.27 ms a request at 1,000/s and 0.64 ms at
 * 200/s; dividing by the latter would flatter the slow scenarios.)
 */
const BARE_EXPRESS_REFERENCE_RATE = 1000;

/**
 * The CPU fields of a results file: what one operation cost every process it
 * touched (`cpu_ms_per_request_at_rate`, by process; `cpu_ms_per_op`, their
 * sum: services, Postgres, Redis; the generator, this process, excluded),
 * the bare express route's CPU per request at BARE_EXPRESS_REFERENCE_RATE in
 * the same run, and the ratio of the two (`cpu_ratio`), which holds across
 * machines.
 */
export function cpuFields(cpuMsPerRequest: Record<string, number>, bare: Yardstick) {
  const operation = Object.fromEntries(Object.entries(cpuMsPerRequest).filter(([label]) => label !== BARE_LABEL));
  const perOp = Object.values(operation).reduce((a, b) => a + b, 0);
  return {
    cpu_ms_per_request_at_rate: operation,
    cpu_ms_per_op: Math.round(perOp * 1000) / 1000,
    bare_express_cpu_ms_per_request: bare.cpuMsPerRequest,
    bare_express_cpu_ms_per_request_readings: bare.readings,
    bare_express_rate_rps: BARE_EXPRESS_REFERENCE_RATE,
    cpu_ratio: bare.cpuMsPerRequest > 0 ? round2(perOp / bare.cpuMsPerRequest) : null,
  };
}

/** The yardstick of cpu_ratio: bare express's CPU per request at BARE_EXPRESS_REFERENCE_RATE, the median of its readings. */
export interface Yardstick {
  cpuMsPerRequest: number;
  readings: number[];
}

/** The yardstick from its readings: their median (the middle one of an odd number, the lower middle of an even one). */
export function yardstickOf(readings: readonly number[]): Yardstick {
  const sorted = [...readings].sort((a, b) => a - b);
  return { cpuMsPerRequest: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, readings: [...readings] };
}

/** Readings of the yardstick, and the seconds of each. */
const YARDSTICK_READINGS = 3;
const YARDSTICK_READING_S = 5;

/**
 * The yardstick, measured the same way in every scenario: a bare express
 * server of its own, started fresh (one that has served a saturation run
 * carries a larger heap into its readings), warmed for two seconds, then
 * driven at BARE_EXPRESS_REFERENCE_RATE for YARDSTICK_READINGS windows of
 * YARDSTICK_READING_S seconds; the median reading is the yardstick.
 * Consecutive 5 s readings here differ by up to about 15 %, readings of
 * servers in different states by up to 40 %.
 */
export async function bareExpressYardstick(): Promise<Yardstick> {
  const port = await freePort();
  const bare = startProcess('bench/baseline-server.ts', { PORT: String(port) });
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/bare`);
    await loadAtRate({ origin, rate: BARE_EXPRESS_REFERENCE_RATE, durationSeconds: 2, warmupSeconds: 0, next: () => BARE_REQUEST });
    const readings: number[] = [];
    for (let i = 0; i < YARDSTICK_READINGS; i++) {
      const run = await cpuPerRequest(
        () => loadAtRate({ origin, rate: BARE_EXPRESS_REFERENCE_RATE, durationSeconds: YARDSTICK_READING_S, warmupSeconds: 0, next: () => BARE_REQUEST }),
        (r) => r.sent,
      );
      readings.push(run.cpuMsPerRequest[BARE_LABEL] ?? 0);
    }
    return yardstickOf(readings);
  } finally {
    await stop(bare);
  }
}

/** The bare express route's request (bench/baseline-server.ts). */
const BARE_REQUEST: HttpRequest = { method: 'GET', path: '/bare' };

/**
 * The bare express route of the running server on `port` driven at `rate`
 * for `seconds` (open loop, the same generator): its latency at that rate,
 * the baseline of a scenario's at-rate latency, and its CPU per request.
 */
async function bareExpressAtRate(rate: number, seconds: number, port: number): Promise<{ latency: AtRateRun; cpuMsPerRequest: number }> {
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/bare`);
  const run = await cpuPerRequest(
    () => loadAtRate({ origin, rate, durationSeconds: seconds, next: () => BARE_REQUEST }),
    (r) => r.sent,
  );
  return { latency: run.result, cpuMsPerRequest: run.cpuMsPerRequest[BARE_LABEL] ?? 0 };
}

/** A run whose generator sent later than this at p99 measured the generator, not the service: its latencies are not results. */
export const GENERATOR_MAX_P99_SEND_LAG_MS = 5;

/**
 * The at-rate fields of a results file: the measured run and, driven at the
 * same rate in the same run, its baseline. When the generator could not keep
 * its schedule (p99 send lag above GENERATOR_MAX_P99_SEND_LAG_MS) the run is
 * marked `generator_ok: false` and its latencies are kept only under
 * `invalid_at_rate`, for diagnosis, not as results.
 */
export function atRateFields(measured: Omit<AtRateRun, 'sent'>, baselineName: string, baseline: LatencyAtRate) {
  const generatorOk = measured.p99_send_lag_ms <= GENERATOR_MAX_P99_SEND_LAG_MS;
  const latencies = {
    p50_at_rate_ms: measured.p50_ms,
    p99_at_rate_ms: measured.p99_ms,
    max_at_rate_ms: measured.max_ms,
    max_at_rate_offset_s: measured.max_at_offset_s,
    max_at_rate_at: measured.max_at,
  };
  return {
    rate_rps: measured.rate_rps,
    achieved_rate_rps: measured.achieved_rps,
    ...(generatorOk ? latencies : { p50_at_rate_ms: null, p99_at_rate_ms: null, max_at_rate_ms: null, invalid_at_rate: latencies }),
    requests_at_rate: measured.requests,
    non2xx_at_rate: measured.non2xx,
    baseline_at_rate: baselineName,
    baseline_p50_at_rate_ms: baseline.p50_ms,
    baseline_p99_at_rate_ms: baseline.p99_ms,
    generator_p99_send_lag_ms: measured.p99_send_lag_ms,
    generator_max_send_lag_ms: measured.max_send_lag_ms,
    generator_ok: generatorOk,
    generator_nice: generatorNice,
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
 * fields every such scenario reports. Two runs of each:
 * - saturation: `connections` connections sending as fast as they are
 *   answered (closed loop): throughput and its ratio to the baseline;
 * - at rate: `atRate.rate` requests per second offered open loop
 *   (loadAtRate), on a database settled again: the latency an SLO is written
 *   against, beside the bare route's at the same rate.
 * Throws when a measured gateway response was not 2xx.
 */
export async function measureAgainstBareExpress(opts: {
  gateway: LoadOptions;
  barePort: number;
  connections: number;
  durationSeconds: number;
  databaseUrl: string;
  atRate: { rate: number; origin: string; next: () => HttpRequest };
}) {
  const bareOrigin = `http://127.0.0.1:${opts.barePort}`;
  const bareUrl = `${bareOrigin}/bare`;
  // First: the measured run then follows its warm-up and baseline, not 20 s of idle services (after which its first requests stalled, up to 0.2 s).
  const yardstick = await bareExpressYardstick();
  // Five seconds of warm-up, so slower machines too start the measured seconds in a steady state.
  await load({ ...opts.gateway, connections: opts.connections, durationSeconds: 5 });
  await settleDatabase(opts.databaseUrl);
  await load({ url: bareUrl, durationSeconds: 2 });
  const baseline = await load({ url: bareUrl, connections: opts.connections, durationSeconds: opts.durationSeconds });
  const measured = await load({ ...opts.gateway, connections: opts.connections, durationSeconds: opts.durationSeconds });
  if (measured.non2xx > 0) throw new Error(`${measured.non2xx} of ${measured.total} gateway responses were not 2xx`);

  await settleDatabase(opts.databaseUrl);
  const { rate, origin, next } = opts.atRate;
  const bare = await bareExpressAtRate(rate, opts.durationSeconds, opts.barePort);
  const {
    result: atRate,
    cpuMsPerRequest,
    redisCallsPerRequest,
    timeline,
    checkpoints,
  } = await cpuPerRequest(
    () => loadAtRate({ origin, rate, durationSeconds: opts.durationSeconds, next }),
    (run) => run.sent,
  );
  if (atRate.non2xx > 0) throw new Error(`at ${rate}/s: ${atRate.non2xx} of ${atRate.requests} gateway responses were not 2xx`);
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
    ...atRateFields(atRate, 'bare_express', bare.latency),
    ...cpuFields(cpuMsPerRequest, yardstick),
    bare_express_cpu_ms_per_request_at_scenario_rate: bare.cpuMsPerRequest,
    redis_calls_per_request_at_rate: redisCallsPerRequest,
    cpu_ms_around_slowest: cpuAround(timeline, atRate.max_at),
    ...checkpoints,
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
  // When and on what: figures compare only within one run on one machine.
  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    load_average: os.loadavg().map(round2),
  };
  const stamped = { ...result, measured_at: new Date().toISOString(), machine };
  writeFileSync(path.join(root, 'bench/results', `${result.scenario}.json`), `${JSON.stringify(stamped, null, 2)}\n`);
}

/** SIGTERM (SIGKILL after 10 s), its peak RSS kept for takePeakRss; resolves once it has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  const measured = running.get(child);
  running.delete(child);
  if (!measured) return;
  await measured.stop();
  stopped.push(measured);
}
