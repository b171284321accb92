// Scenario `webhook_fanout`: outbox events fanned out to 10 endpoints of one
// workspace and delivered by the webhook-sender (a separate process: relay poll
// + BullMQ worker) to a node:http receiver on 127.0.0.1 in this process.
//
// Events are written with recordEvent, a few per transaction like the modules
// do, at a steady pace. `rps` is deliveries/s received over a phase (first
// event written → last delivery received); latency is from the event's
// created_at (the body's created_at) to its arrival here. The writer never
// waits for deliveries (open loop); how late its transactions started against
// their schedule is recorded (`generator_*_send_lag_ms`), so a run that could
// not keep the offered pace says so.
// Phase 1 (extra, `light_*`): 200 deliveries/s offered, the latency floor.
// Phase 2 (the figures, and the at-rate fields): 1,000 deliveries/s offered
// (PACED). Its baseline (`baseline_*_at_rate_ms`): a bare fan-out, this
// process POSTing to the same receiver at the same rate, open loop
// (loadAtRate): the HTTP round trip of a delivery with no outbox, queue or
// sender in between.
// Phase 3 (extra, `burst_*`): events written at once, drained as fast as the
// sender can: its capacity (this scenario's saturation figure).
// The relay polls every WEBHOOK_RELAY_POLL_MS (the default, 20 ms, set
// explicitly); nothing queues wake-ups, as no module does.
// Targets: >= 1,000 deliveries/s and p99 < 100 ms; every
// offered delivery delivered, p99 < 100 ms at 1,000 deliveries/s.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createWorkspace } from '@cowrie/accounts';
import { createDb, recordEvent, type PrismaClient } from '@cowrie/db';
import { createAddressPolicy, createWebhookEndpoint } from '@cowrie/webhooks';
import {
  asGenerator,
  atRateFields,
  bareExpressYardstick,
  BENCH_ENCRYPTION_KEY,
  benchRedisEnv,
  clearRedisPrefixes,
  cpuAround,
  cpuFields,
  cpuPerRequest,
  freshDatabase,
  GENERATOR_APPLICATION_NAME,
  loadAtRate,
  peakRssMb,
  percentile,
  round1,
  settleDatabase,
  startProcess,
  stop,
  type ScenarioResult,
} from '../lib';

const FAN_OUT = 10;
const RELAY_POLL_MS = Number(process.env.WEBHOOK_RELAY_POLL_MS ?? 20);
interface Pace {
  /** Events per transaction. */
  eventsPerBatch: number;
  /** Transactions per second. */
  batchesPerS: number;
  seconds: number;
}
/** The figures and the at-rate run: 1,000 deliveries/s offered. */
const PACED: Pace = { eventsPerBatch: 5, batchesPerS: 20, seconds: 15 };
/** The latency floor: 200 deliveries/s offered. */
const LIGHT: Pace = { eventsPerBatch: 2, batchesPerS: 10, seconds: 5 };
const offeredPerS = (p: Pace) => p.eventsPerBatch * p.batchesPerS * FAN_OUT;
const BURST_EVENTS = 500;
/** Connections of the event writer's pool: enough for transactions to overlap when one commit is slow. */
const GENERATOR_CONNECTIONS = 4;
/** The payload of every event the bench writes. */
const eventPayload = (reference: string) => ({
  reference,
  channel: 'email',
  destination: 'b***@example.com',
  status: 'verified',
  attempts: 1,
  verified_at: '2026-11-27T03:00:00.000Z',
});
/** The bare fan-out's body: a delivery of the same shape and size as the sender's. */
const BARE_DELIVERY = JSON.stringify({
  id: '00000000-0000-4000-8000-000000000000',
  event: 'verification.verified',
  created_at: new Date().toISOString(),
  data: eventPayload('00000000-0000-4000-8000-000000000000'),
  livemode: true,
});
/** How long to wait for the last deliveries of a phase once its events are written. */
const DRAIN_TIMEOUT_MS = 60_000;

interface Receiver {
  server: Server;
  port: number;
  /** Delivery ids seen, to count duplicates. */
  seen: Set<string>;
  duplicates: number;
  latencies: number[];
  /** The slowest delivery since the last reset: its latency and its event's created_at. */
  slowest: { ms: number; createdAt: string };
  received: number;
  lastAt: number;
  reset(): void;
}

/**
 * The receiver of every endpoint (`/hooks/<i>`): records each delivery's
 * latency from its event's created_at. Any other path is the bare fan-out's:
 * it reads and parses the body the same way, answers the same, and records
 * nothing.
 */
function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    server: undefined as unknown as Server,
    port: 0,
    seen: new Set(),
    duplicates: 0,
    latencies: [],
    slowest: { ms: -1, createdAt: '' },
    received: 0,
    lastAt: 0,
    reset() {
      this.latencies = [];
      this.slowest = { ms: -1, createdAt: '' };
      this.received = 0;
      this.lastAt = 0;
    },
  };
  receiver.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(204).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        if (!req.url?.startsWith('/hooks/')) return;
        if (receiver.seen.has(body.id)) {
          receiver.duplicates += 1;
          return;
        }
        receiver.seen.add(body.id);
        receiver.received += 1;
        receiver.lastAt = at;
        const ms = at - Date.parse(body.created_at);
        receiver.latencies.push(ms);
        if (ms > receiver.slowest.ms) receiver.slowest = { ms, createdAt: body.created_at };
      } catch {
        // not a delivery; ignored
      }
    });
  });
  receiver.server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    receiver.server.once('error', reject);
    receiver.server.listen(0, '127.0.0.1', () => {
      receiver.port = (receiver.server.address() as { port: number }).port;
      resolve(receiver);
    });
  });
}

async function writeEvents(db: PrismaClient, workspaceId: number, count: number, seq: { n: number }) {
  await db.$transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      const reference = `00000000-0000-4000-8000-${String(seq.n++).padStart(12, '0')}`;
      await recordEvent(tx, workspaceId, { name: 'verification.verified', payload: eventPayload(reference) });
    }
  });
}

async function waitForDeliveries(receiver: Receiver, expected: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes events at a steady pace, open loop: each transaction starts on its
 * schedule whether or not the ones before it have committed (the writer's
 * pool has GENERATOR_CONNECTIONS connections), so a slow commit delays no
 * later event and the schedule is kept (its lag is recorded). Waits for all
 * deliveries; returns deliveries/s over the phase (first event written → last
 * delivery received) and the event-to-delivery latencies.
 */
function pacedPhase(db: PrismaClient, workspaceId: number, receiver: Receiver, seq: { n: number }, pace: Pace) {
  // The writer and the receiver (which times each arrival) are the generator here.
  return asGenerator(() => writePaced(db, workspaceId, receiver, seq, pace));
}

async function writePaced(db: PrismaClient, workspaceId: number, receiver: Receiver, seq: { n: number }, pace: Pace) {
  receiver.reset();
  const events = pace.eventsPerBatch * pace.batchesPerS * pace.seconds;
  const batches = pace.batchesPerS * pace.seconds;
  const started = performance.now() + 20;
  const startedAt = Date.now() + 20;
  /** How late each transaction started against its due time. */
  const lags: number[] = [];
  const writes: Array<Promise<void>> = [];
  await new Promise<void>((resolve) => {
    let b = 0;
    const tick = () => {
      while (b < batches && started + (b * 1000) / pace.batchesPerS <= performance.now()) {
        lags.push(performance.now() - (started + (b * 1000) / pace.batchesPerS));
        writes.push(writeEvents(db, workspaceId, pace.eventsPerBatch, seq));
        b += 1;
      }
      if (b < batches) setTimeout(tick, Math.max(0, started + (b * 1000) / pace.batchesPerS - performance.now()));
      else resolve();
    };
    setTimeout(tick, 20);
  });
  await Promise.all(writes);
  const writtenInS = round1((Date.now() - startedAt) / 1000);
  await waitForDeliveries(receiver, events * FAN_OUT, DRAIN_TIMEOUT_MS);
  if (receiver.received < events * FAN_OUT) throw new Error(`paced phase: ${receiver.received} of ${events * FAN_OUT} deliveries arrived`);
  const result = {
    events,
    received: receiver.received,
    writtenInS,
    deliveriesPerS: Math.round(receiver.received / ((receiver.lastAt - startedAt) / 1000)),
    p50_ms: percentile(receiver.latencies, 50),
    p99_ms: percentile(receiver.latencies, 99),
    max_ms: percentile(receiver.latencies, 100),
    max_at: receiver.slowest.createdAt,
    max_at_offset_s: round1((Date.parse(receiver.slowest.createdAt) - startedAt) / 1000),
    p99_lag_ms: round1(percentile(lags, 99)),
    max_lag_ms: round1(percentile(lags, 100)),
  };
  await sleep(500);
  receiver.reset();
  return result;
}

export async function webhookFanout(): Promise<ScenarioResult> {
  const databaseUrl = await freshDatabase('cowrie_bench_webhook_fanout');
  const receiver = await startReceiver();
  // The writer's connections are named, so their backends' CPU counts as the generator's, not the fan-out's.
  const generatorUrl = new URL(databaseUrl);
  generatorUrl.searchParams.set('application_name', GENERATOR_APPLICATION_NAME);
  const db = createDb({ databaseUrl: generatorUrl.toString(), poolSize: GENERATOR_CONNECTIONS });
  const redisEnv = benchRedisEnv();
  let sender: ReturnType<typeof startProcess> | undefined;
  try {
    const workspace = await createWorkspace(db, { name: 'Bench' });
    const policy = createAddressPolicy(['127.0.0.0/8']);
    for (let i = 0; i < FAN_OUT; i++) {
      await createWebhookEndpoint(db, {
        workspaceId: workspace.id,
        input: { url: `http://127.0.0.1:${receiver.port}/hooks/${i}`, events: ['*'] },
        encryptionKey: BENCH_ENCRYPTION_KEY,
        maxEndpoints: FAN_OUT,
        policy,
      });
    }
    sender = startProcess('services/webhook-sender/dist/main.js', {
      ...redisEnv,
      DATABASE_URL: databaseUrl,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_RELAY_POLL_MS: String(RELAY_POLL_MS),
    });
    // The yardstick of cpu_ratio, before the warm-up: the measured run follows its warm-up, not 20 s of an idle sender.
    const yardstick = await bareExpressYardstick();
    // Warm-up: the sender is up and consuming once a first event arrives everywhere.
    const seq = { n: 0 };
    await writeEvents(db, workspace.id, 20, seq);
    await waitForDeliveries(receiver, 20 * FAN_OUT, 60_000);
    if (receiver.received < 20 * FAN_OUT) throw new Error(`warm-up: ${receiver.received} of ${20 * FAN_OUT} deliveries arrived`);
    await settleDatabase(databaseUrl);
    await sleep(500);

    // Phase 1 (extra): a light load, far below capacity: the latency floor.
    const light = await pacedPhase(db, workspace.id, receiver, seq, LIGHT);
    // The baseline at rate: a bare fan-out from this process to the same receiver.
    const bareFanOut = await loadAtRate({
      origin: `http://127.0.0.1:${receiver.port}`,
      rate: offeredPerS(PACED),
      durationSeconds: 10,
      next: () => ({ method: 'POST', path: '/bare', headers: { 'content-type': 'application/json' }, body: BARE_DELIVERY }),
    });
    // Phase 2 (the figures, and the at-rate run): the target rate; CPU per delivery of the sender, Postgres and Redis.
    const {
      result: paced,
      cpuMsPerRequest,
      timeline,
      checkpoints,
    } = await cpuPerRequest(
      () => pacedPhase(db, workspace.id, receiver, seq, PACED),
      (phase) => phase.received,
    );

    // Phase 3 (extra): a burst written at once (in transactions of 50), drained at full speed.
    const burstStarted = Date.now();
    for (let i = 0; i < BURST_EVENTS; i += 50) await writeEvents(db, workspace.id, Math.min(50, BURST_EVENTS - i), seq);
    await waitForDeliveries(receiver, BURST_EVENTS * FAN_OUT, DRAIN_TIMEOUT_MS);
    const burst = { received: receiver.received, seconds: (receiver.lastAt - burstStarted) / 1000, latencies: receiver.latencies };
    if (burst.received < BURST_EVENTS * FAN_OUT) throw new Error(`burst phase: ${burst.received} of ${BURST_EVENTS * FAN_OUT} deliveries arrived`);

    const failed = await db.webhookDelivery.count({ where: { ok: 0, completedAt: { not: null } } });
    return {
      scenario: 'webhook_fanout',
      rps: paced.deliveriesPerS,
      p50_ms: paced.p50_ms,
      p99_ms: paced.p99_ms,
      baseline: 'offered_deliveries_per_s',
      baseline_rps: offeredPerS(PACED),
      ratio: Math.round((paced.deliveriesPerS / offeredPerS(PACED)) * 100) / 100,
      peak_rss_mb: peakRssMb(sender.pid!),
      unit: 'deliveries/s',
      fan_out: FAN_OUT,
      events: paced.events,
      deliveries: paced.received,
      events_per_transaction: PACED.eventsPerBatch,
      events_written_in_s: paced.writtenInS,
      max_latency_ms: paced.max_ms,
      relay_poll_ms: RELAY_POLL_MS,
      light_offered_deliveries_per_s: offeredPerS(LIGHT),
      light_deliveries_per_s: light.deliveriesPerS,
      light_p50_ms: light.p50_ms,
      light_p99_ms: light.p99_ms,
      burst_events: BURST_EVENTS,
      burst_deliveries_per_s: Math.round(burst.received / burst.seconds),
      burst_p50_ms: percentile(burst.latencies, 50),
      burst_p99_ms: percentile(burst.latencies, 99),
      duplicate_deliveries: receiver.duplicates,
      failed_deliveries: failed,
      target_rps: 1000,
      target_p99_ms: 100,
      ...atRateFields(
        {
          rate_rps: offeredPerS(PACED),
          achieved_rps: paced.deliveriesPerS,
          p50_ms: paced.p50_ms,
          p99_ms: paced.p99_ms,
          max_ms: paced.max_ms,
          max_at: paced.max_at,
          max_at_offset_s: paced.max_at_offset_s,
          requests: paced.events * FAN_OUT,
          // pacedPhase throws unless every delivery arrived.
          non2xx: paced.events * FAN_OUT - paced.received,
          // The event writer's lag: how late its transactions started.
          p99_send_lag_ms: paced.p99_lag_ms,
          max_send_lag_ms: paced.max_lag_ms,
        },
        'bare_fan_out',
        bareFanOut,
      ),
      // Per delivery: the sender, Postgres (the writer's own connections excluded) and Redis.
      ...cpuFields(cpuMsPerRequest, yardstick),
      cpu_ms_around_slowest: cpuAround(timeline, paced.max_at),
      ...checkpoints,
    };
  } finally {
    if (sender) await stop(sender);
    await clearRedisPrefixes(redisEnv);
    await db.$disconnect();
    receiver.server.closeAllConnections();
    await new Promise((r) => receiver.server.close(() => r(undefined)));
  }
}
