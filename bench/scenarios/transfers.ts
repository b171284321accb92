// Scenario `transfers`: POST /v1/transfers end to end (gateway → payouts queue
// → payout-worker → sandbox rail → ledger), gateway and payout-worker as
// separate processes, 50 connections, a unique idempotency_key per request,
// to 10-digit sandbox success accounts from one generously funded NGN wallet.
// Baseline in the same run: `pgbench -b tpcb-like` on a scratch database (the
// ceiling of a DB-bound ledger write on this machine). Two runs of each:
// saturation (50 connections; pgbench's 8 clients as fast as they go), and
// open loop at RATE transfers/s (loadAtRate; `pgbench --rate RATE`, whose
// per-transaction log gives latencies from each transaction's scheduled start,
// Poisson arrivals like loadAtRate's). Afterwards every transfer must be final
// (none left `processing`) and the wallet audit hold.
// BENCH_PAYOUT_RAILS=sandbox,flutterwave measures the same path with two payout
// rails configured (a route recorded on each payout, the rail breaker read
// before each send); outside production, since production refuses the sandbox
// beside a real rail: compare with BENCH_PAYOUT_RAILS=sandbox (one rail, the
// same NODE_ENV). Nothing reaches the second rail: the sandbox takes every one.
// Targets: ratio >= 0.25, p99 < 250 ms at 50 connections; p99 < 60
// ms at RATE.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { createApiKey, createWorkspace } from '@cowrie/accounts';
import { Decimal } from '@cowrie/core';
import { createDb, type PrismaClient } from '@cowrie/db';
import { auditWallet, findWallet } from '@cowrie/ledger';
import { fundWallet } from '@cowrie/ledger/testing';
import {
  atRateFields,
  bareExpressYardstick,
  cpuAround,
  cpuFields,
  cpuPerRequest,
  emptyDatabase,
  load,
  loadAtRate,
  percentile,
  settleDatabase,
  startBenchStack,
  type LatencyAtRate,
  type ScenarioResult,
} from '../lib';

const CONNECTIONS = 50;
const DURATION_S = 10;
const WARMUP_S = 3;
const FUNDING = '1000000000';
const AMOUNT = '100.00';
const PGBENCH = { clients: 8, threads: 2, seconds: 10, scale: 1 };
/** The at-rate run's offered transfers/s: about half of what this machine kind saturates at (370–650/s in runs here). */
const RATE = 200;

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs a command to completion within `timeoutMs`; rejects on a non-zero exit. */
function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args[0]} exited ${code ?? signal}:\n${out}`))));
  });
}

/** A fresh scratch database for pgbench, initialised with `pgbench -i`. */
async function initPgbench(): Promise<string> {
  const url = await emptyDatabase('cowrie_bench_pgbench');
  await run('pgbench', ['-i', '-q', '-s', String(PGBENCH.scale), url], 60_000);
  return url;
}

/** `pgbench -b tpcb-like` for PGBENCH.seconds, plus `extra` options; its output. */
function runPgbench(url: string, extra: string[] = []): Promise<string> {
  const { clients, threads, seconds } = PGBENCH;
  const args = ['-b', 'tpcb-like', '-c', String(clients), '-j', String(threads), '-T', String(seconds), '-n', ...extra, url];
  return run('pgbench', args, (seconds + 30) * 1000);
}

/** pgbench's transactions per second at saturation. */
async function pgbenchTps(url: string): Promise<number> {
  const out = await runPgbench(url);
  const tps = /tps = ([\d.]+)/.exec(out)?.[1];
  if (!tps) throw new Error(`no "tps =" in pgbench output:\n${out}`);
  return Number(tps);
}

/**
 * pgbench at `rate` transactions/s (`--rate`: Poisson arrivals), p50/p99 from
 * its per-transaction log (`-l`), whose latency runs from each transaction's
 * scheduled start, schedule lag included.
 */
async function pgbenchAtRate(url: string, rate: number): Promise<LatencyAtRate> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cowrie-pgbench-'));
  try {
    await runPgbench(url, ['--rate', String(rate), '-l', `--log-prefix=${path.join(dir, 'log')}`]);
    // One line per transaction: client_id transaction_no time(µs) script_no time_epoch time_us schedule_lag.
    const latencies = readdirSync(dir).flatMap((file) =>
      readFileSync(path.join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split(' ')[2]) / 1000),
    );
    return { p50_ms: round(percentile(latencies, 50)), p99_ms: round(percentile(latencies, 99)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function transferBody() {
  // A 10-digit account other than the sandbox's failure accounts 0000000001/2.
  const account = String(1_000_000_000 + Math.floor(Math.random() * 8_999_999_999));
  return JSON.stringify({
    currency: 'NGN',
    amount: AMOUNT,
    account_number: account,
    bank_code: '058',
    account_name: 'Bench Recipient',
    idempotency_key: `bench-${randomUUID()}`,
  });
}

async function statusCounts(db: PrismaClient, walletId: number) {
  const rows = await db.ledgerTransaction.groupBy({ by: ['status'], where: { walletId, type: 'debit' }, _count: { _all: true } });
  return Object.fromEntries(rows.map((r) => [r.status, r._count._all])) as Record<string, number>;
}

/** The wallet's transfers by status once none is `processing` (or after 30 s). */
async function settledCounts(db: PrismaClient, walletId: number) {
  let counts = await statusCounts(db, walletId);
  const deadline = Date.now() + 30_000;
  while ((counts.processing ?? 0) > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    counts = await statusCounts(db, walletId);
  }
  return counts;
}

export async function transfers(): Promise<ScenarioResult> {
  const pgbenchUrl = await initPgbench();
  // Pool sizes and PAYOUT_WORKER_CONCURRENCY come from the caller's environment (every process inherits it).
  const rails: Record<string, string> = process.env.BENCH_PAYOUT_RAILS ? { PAYOUT_RAILS: process.env.BENCH_PAYOUT_RAILS, NODE_ENV: 'development' } : {};
  // A fresh database, key and queue prefixes of its own (emptied at close), the gateway and the payout worker.
  const stack = await startBenchStack({
    name: 'cowrie_bench_transfers',
    env: { PAYOUT_FEE_SCHEDULE: '{}', ...rails },
    services: [{ service: 'gateway', listens: true, readyPath: '/healthz', env: { PUBLIC_API_RATE_LIMIT: '1000000000' } }, { service: 'payout-worker' }],
  });
  const [gateway, worker] = stack.replicas;
  const { databaseUrl } = stack;
  const db = createDb({ databaseUrl, poolSize: 2 });
  try {
    const workspace = await createWorkspace(db, { name: 'Bench transfers' });
    const { key } = await createApiKey(db, { workspaceId: workspace.id, scopes: ['payouts:write', 'read'] });
    await fundWallet(db, workspace.id, FUNDING);
    const wallet = (await findWallet(db, workspace.id, 'NGN'))!;

    const base = gateway!.url!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // The worker is up once a transfer completes synchronously.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await fetch(`${base}/v1/transfers`, { method: 'POST', headers, body: transferBody() });
      const body = (await res.json().catch(() => null)) as { data?: { status?: string } } | null;
      if (res.status === 201 && body?.data?.status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`the payout worker did not complete a transfer: ${res.status} ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // The yardstick of cpu_ratio, before the warm-up: the measured run follows its warm-up, not 20 s of idle services.
    const yardstick = await bareExpressYardstick();
    const requests: autocannon.Request[] = [{ method: 'POST', path: '/v1/transfers', headers, setupRequest: (req) => ({ ...req, body: transferBody() }) }];
    await load({ url: base, requests, connections: CONNECTIONS, durationSeconds: WARMUP_S });
    await settleDatabase(databaseUrl);

    const baselineTps = await pgbenchTps(pgbenchUrl);
    const measured = await load({ url: base, requests, connections: CONNECTIONS, durationSeconds: DURATION_S });

    // The at-rate run starts once the saturation run's transfers are final, on a settled database.
    await settledCounts(db, wallet.id);
    await settleDatabase(databaseUrl);
    const baselineAtRate = await pgbenchAtRate(pgbenchUrl, RATE);
    const {
      result: atRate,
      cpuMsPerRequest,
      timeline,
      checkpoints,
    } = await cpuPerRequest(
      () =>
        loadAtRate({
          origin: base,
          rate: RATE,
          durationSeconds: DURATION_S,
          next: () => ({ method: 'POST', path: '/v1/transfers', headers, body: transferBody() }),
        }),
      (run) => run.sent,
    );

    // Everything answered `processing` must settle on its own.
    const counts = await settledCounts(db, wallet.id);
    const audit = await auditWallet(db, wallet.id);
    // The money that left is exactly the completed transfers (no fee schedule is set).
    const expectedBalance = new Decimal(FUNDING).minus(new Decimal(AMOUNT).times(counts.completed ?? 0));
    const result: ScenarioResult = {
      scenario: 'transfers',
      rps: measured.rps,
      p50_ms: measured.p50_ms,
      p99_ms: measured.p99_ms,
      baseline: 'pgbench_tpcb',
      baseline_rps: round(baselineTps, 1),
      ratio: round(measured.rps / baselineTps),
      peak_rss_mb: gateway!.process!.peakRssMb(),
      worker_peak_rss_mb: worker!.process!.peakRssMb(),
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      measured_requests: measured.total,
      non2xx: measured.non2xx,
      // Every transfer of the run (readiness probe and warm-up included), once settled.
      transfers_created: Object.values(counts).reduce((a, b) => a + b, 0),
      transfers_completed: counts.completed ?? 0,
      transfers_processing: counts.processing ?? 0,
      transfers_failed: counts.failed ?? 0,
      audit_consistent: audit.consistent,
      meets_targets: measured.rps / baselineTps >= 0.25 && measured.p99_ms < 250,
      pgbench: `-b tpcb-like -s ${PGBENCH.scale} -c ${PGBENCH.clients} -j ${PGBENCH.threads} -T ${PGBENCH.seconds}`,
      ...atRateFields(atRate, `pgbench_tpcb --rate ${RATE}`, baselineAtRate),
      // The payout's whole path: gateway, worker, Postgres, Redis.
      ...cpuFields(cpuMsPerRequest, yardstick),
      cpu_ms_around_slowest: cpuAround(timeline, atRate.max_at),
      ...checkpoints,
    };
    const problems = [
      measured.non2xx > 0 && `${measured.non2xx} of ${measured.total} responses were not 2xx`,
      atRate.non2xx > 0 && `at ${RATE}/s: ${atRate.non2xx} of ${atRate.requests} responses were not 2xx`,
      result.transfers_processing !== 0 && `${result.transfers_processing} transfers still processing`,
      result.transfers_failed !== 0 && `${result.transfers_failed} transfers failed`,
      !audit.consistent && `wallet audit failed: ${JSON.stringify(audit)}`,
      !audit.balance.equals(expectedBalance) && `balance ${audit.balance.toFixed(6)}, expected ${expectedBalance.toFixed(6)}`,
      !audit.held.isZero() && `${audit.held.toFixed(6)} still held`,
    ].filter(Boolean);
    if (problems.length) throw new Error(`transfers: ${problems.join('; ')}\n${JSON.stringify(result, null, 2)}`);
    return result;
  } finally {
    await Promise.all([stack.close(), db.$disconnect()]);
  }
}
