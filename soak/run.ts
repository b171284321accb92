// `npm run soak -- --seed N --minutes M [--replicas R] [--lanes L] [--rails paystack,flutterwave]`: the chaos
// soak. Starts its own Redis (AOF), database, Paystack stand-in, webhook
// receivers and R replicas of every service; drives a seeded mix through the
// public API while a seeded schedule kills processes, Redis and Postgres
// connections and pauses the rail; then, after a quiet period, checks what must
// hold (checks.ts). With two payout rails both stand-ins fail on seeded plans
// (a rail's own refusals among them, which move payouts to the other rail),
// one rail goes down for a whole period, and the checks add that no payout
// was paid on two rails; it prints how many payouts failed over. Prints the
// seed first and last; exits 1 on any violation.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { createRedis, encryptSecret, loadConfig } from '@cowrie/core';
import { createDb } from '@cowrie/db';
import { createUserFor, createWorkspaceWithKey, seededRandom, waitFor } from '@cowrie/testing';
import { fundWallet } from '@cowrie/ledger/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { payoutReferenceOf } from '@cowrie/payouts';
import { checkSoak, flutterwaveTruth, paystackTruth } from './checks';
import { startDriver, type Business } from './driver';
import { SOAK_OPTIONS } from './options';
import { createWorld, RECONCILE_EVERY_MS, type RedisMode, type World } from './world';

const { values } = parseArgs({ options: SOAK_OPTIONS });
const seed = Number(values.seed);
const minutes = Number(values.minutes);
const replicaCount = Number(values.replicas);
const redisMode = values.redis as RedisMode;
const payoutRails = String(values.rails)
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean);
const railsOk =
  payoutRails[0] === 'paystack' && payoutRails.every((r) => ['paystack', 'flutterwave'].includes(r)) && new Set(payoutRails).size === payoutRails.length;
if (!Number.isInteger(seed) || !(minutes > 0) || !(replicaCount >= 1) || !['single', 'cluster'].includes(redisMode) || !railsOk) {
  console.error(
    'usage: npm run soak -- --seed <integer> --minutes <number> [--redis single|cluster] [--replicas <n>] [--lanes <n>] [--rails paystack|paystack,flutterwave]',
  );
  process.exit(2);
}

const started = Date.now();
const say = (line: string) => console.log(`[soak ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

interface Fault {
  at: number;
  kind: 'kill service' | 'restart redis' | 'terminate postgres connections' | 'pause rail' | 'rail outage';
}

/** The fault schedule, from the seed alone: process kills every 20-60 s, Redis every 90-180 s, Postgres connections every 30-60 s, a rail pause every 60-120 s; each at least once. */
function faultSchedule(durationMs: number): Fault[] {
  const rng = seededRandom(seed);
  const faults: Fault[] = [];
  const every = (kind: Fault['kind'], min: number, max: number) => {
    const before = faults.length;
    for (let at = rng.int(min, max) * 1000; at < durationMs; at += rng.int(min, max) * 1000) faults.push({ at, kind });
    // A run shorter than the interval still meets each fault once, somewhere in its middle half.
    if (faults.length === before) faults.push({ at: Math.round(durationMs * (0.25 + rng.next() / 2)), kind });
  };
  every('kill service', 20, 60);
  every('restart redis', 90, 180);
  every('terminate postgres connections', 30, 60);
  every('pause rail', 60, 120);
  // With two payout rails, one of them is down for a whole period (refusing before it accepts anything), once per run.
  if (payoutRails.length > 1) faults.push({ at: Math.round(durationMs * (0.2 + rng.next() * 0.2)), kind: 'rail outage' });
  return faults.sort((a, b) => a.at - b.at);
}

async function injectFault(world: World, fault: Fault, rng: ReturnType<typeof seededRandom>, counts: Record<string, number>) {
  counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
  switch (fault.kind) {
    case 'kill service': {
      const replica = rng.pick(world.replicas);
      say(`SIGKILL ${replica.service}#${replica.index}; restarting it`);
      await world.kill(replica);
      world.start(replica);
      return;
    }
    case 'restart redis': {
      // One master at a time in a Cluster.
      const node = rng.pick(world.redisNodes);
      say(`SIGKILL redis on port ${node.port}; restarting it (AOF)`);
      await node.kill();
      await new Promise((r) => setTimeout(r, rng.int(200, 2000)));
      await node.restart();
      return;
    }
    case 'terminate postgres connections': {
      const client = new Client({ connectionString: world.databaseUrl });
      await client.connect();
      const { rows } = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND random() < 0.5`,
        [world.databaseName],
      );
      await client.end();
      say(`terminated ${rows.length} Postgres connections`);
      return;
    }
    case 'rail outage': {
      // A fifth of the run, 15 to 90 s: the first rail (Paystack answers every call 500, so nothing is
      // accepted: a recipient is never made) or the second (Flutterwave's port closed).
      const ms = Math.min(90_000, Math.max(15_000, Math.round(minutes * 60_000 * 0.2)));
      const down = rng.pick(payoutRails);
      say(`rail outage: ${down} down for ${ms} ms`);
      if (down === 'paystack') {
        world.standIn.options.mode = 'error_500';
        setTimeout(() => {
          world.standIn.options.mode = 'ok';
        }, ms);
      } else {
        await world.flutterwave!.goDown();
        setTimeout(() => void world.flutterwave!.comeUp(), ms);
      }
      return;
    }
    case 'pause rail': {
      const ms = rng.int(3000, 10000);
      say(`rail verify down and sends hanging for ${ms} ms`);
      world.standIn.options.verifyDown = true;
      const behaviour = world.standIn.options.behaviour;
      world.standIn.options.behaviour = () => ({ record: false, answer: 'hang' });
      // The collection rail takes every request and answers only when the pause ends.
      const release = world.collectionStandIn.holdAnswers();
      setTimeout(() => {
        world.standIn.options.verifyDown = false;
        world.standIn.options.behaviour = behaviour;
        release();
      }, ms);
      return;
    }
  }
}

async function main() {
  say(`seed ${seed}: ${minutes} min, ${redisMode} Redis, ${replicaCount} replicas of each service, ${values.lanes} lanes`);
  const world = await createWorld({ seed, replicas: replicaCount, redis: redisMode, rails: payoutRails });
  const config = loadConfig({ ...world.env });
  const db = createDb({ databaseUrl: world.databaseUrl, poolSize: 3 });
  const redis = createRedis(config, { name: 'soak' });
  redis.on('error', () => undefined);
  let ok = false;
  try {
    // The last moment a planned reversal happens at the rail: the quiet period waits past it.
    let reversalsDueBy = 0;
    // The rail: seeded by the payout's narration (the driver's operation tag), so a seed replays the same outcomes.
    world.standIn.options.hangMs = 1500;
    const twoRails = payoutRails.length > 1;
    world.standIn.options.behaviour = ({ reason }) => {
      const roll = seededRandom(seed ^ hash(reason)).next();
      // With a second rail: Paystack's own balance too low now and then (the payout moves on).
      if (twoRails && seededRandom(seed ^ hash(`refuse:${reason}`)).next() < 0.05) return { record: false, answer: 'refuse' };
      if (roll < 0.06) return { record: false, answer: '5xx' };
      if (roll < 0.1) return { record: true, answer: '5xx' };
      if (roll < 0.14) return { record: true, answer: 'hang', visibleAfterMs: 2000 };
      if (roll < 0.18) return { record: false, answer: 'hang' };
      if (roll < 0.24) return { record: true, answer: 'ok', visibleAfterMs: 1500 };
      // Pending at first, settled later by the rail: paid, failed or reversed.
      if (roll < 0.3)
        return {
          record: true,
          answer: 'ok',
          settle: { afterMs: 500 + Math.floor(roll * 40_000), status: roll < 0.27 ? 'success' : roll < 0.285 ? 'failed' : 'reversed' },
        };
      // Paid, then returned by the bank a few seconds later: the notification reaches a gateway, or is lost (the watch finds it).
      if (roll < 0.36) {
        const reverseAfterMs = 1000 + Math.floor((roll - 0.3) * 150_000);
        reversalsDueBy = Math.max(reversalsDueBy, Date.now() + reverseAfterMs);
        return { record: true, answer: 'ok', reverseAfterMs };
      }
      return undefined;
    };
    // Half the reversal notifications are lost.
    world.standIn.options.notifies = (reference) => seededRandom(seed ^ hash(`notify:${reference}`)).next() < 0.5;
    // The second rail: its own plan, seeded by the payout's narration too (its refusals leave a payout nowhere else to go: it fails).
    const flutterwave = world.flutterwave;
    if (flutterwave) {
      flutterwave.options.hangMs = 1500;
      flutterwave.options.instant = false;
      flutterwave.options.settleMs = 300;
      flutterwave.options.behaviour = ({ narration }) => {
        const roll = seededRandom((seed + 11) ^ hash(narration)).next();
        if (roll < 0.04) return { record: false, answer: 'refuse' };
        if (roll < 0.08) return { record: false, answer: '5xx' };
        if (roll < 0.12) return { record: true, answer: '5xx' };
        if (roll < 0.16) return { record: true, answer: 'hang', visibleAfterMs: 2000 };
        if (roll < 0.2) return { record: false, answer: 'hang' };
        if (roll < 0.26)
          return { record: true, answer: 'ok', settle: { afterMs: 500 + Math.floor(roll * 20_000), status: roll < 0.24 ? 'SUCCESSFUL' : 'FAILED' } };
        if (roll < 0.32) {
          const reverseAfterMs = 1000 + Math.floor((roll - 0.26) * 150_000);
          reversalsDueBy = Math.max(reversalsDueBy, Date.now() + reverseAfterMs);
          return { record: true, answer: 'ok', reverseAfterMs };
        }
        return undefined;
      };
      flutterwave.options.notifies = (reference) => seededRandom(seed ^ hash(`flw-notify:${reference}`)).next() < 0.5;
    }
    // The SMS provider: seeded by the phone (one per start): refusals, answers that hang after sending, slow answers.
    world.termii.reply = ({ body }) => {
      const roll = seededRandom(seed ^ hash(String(body.to ?? body.phone_number))).next();
      if (roll < 0.05) return { status: 500, body: { message: 'Service temporarily unavailable' }, delivered: false };
      if (roll < 0.08) return 'hang';
      if (roll < 0.2) return { delayMs: 200 + Math.floor(roll * 5000) };
      return {};
    };

    const businesses: Business[] = [];
    for (let i = 0; i < 3; i++) {
      const { workspace, key } = await createWorkspaceWithKey(db, { name: `Soak ${i}` });
      await fundWallet(db, workspace.id, '1000000000');
      const stableEndpoints: number[] = [];
      for (const receiver of world.receivers) {
        const endpoint = await db.webhookEndpoint.create({
          data: {
            workspaceId: workspace.id,
            url: `${receiver.url}/hook`,
            events: ['*'],
            secretEncrypted: encryptSecret(`soak-secret-${i}`, config.ENCRYPTION_KEY),
          },
        });
        stableEndpoints.push(endpoint.id);
      }
      const user = await createUserFor(db, workspace.id, `soak-owner-${i}@example.com`);
      businesses.push({ workspaceId: workspace.id, key, session: '', beneficiaryIds: [], churnEndpoints: [], stableEndpoints, user });
    }
    // Receivers: one reliable, one slow, one that fails a third of the time.
    const receiverRng = seededRandom(seed + 7);
    world.receivers[1]!.reply = () => (receiverRng.next() < 0.1 ? 'hang' : { status: 200 });
    world.receivers[2]!.reply = () => (receiverRng.next() < 0.33 ? { status: 503 } : { status: 200 });

    const gateways = () => world.replicas.filter((r) => r.service === 'gateway');
    await Promise.all(gateways().map((g) => waitFor(async () => (await fetch(`${g.url}/healthz`).catch(() => null))?.ok, 60_000, 200)));
    // Each business signs in to the dashboard and saves two beneficiaries, through the API.
    const gatewayUrl = gateways()[0]!.url!;
    const post = async (path: string, token: string, body: unknown) => {
      const res = await fetch(`${gatewayUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (!res.ok) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    for (const business of businesses) {
      business.session = String((await post('/auth/login', '', { email: business.user.email, password: business.user.password })).token);
      for (const n of [1, 2]) {
        const beneficiary = await post('/v1/beneficiaries', business.key, {
          name: `Soak Beneficiary ${n}`,
          account_number: String(2_000_000_000 + business.workspaceId * 10 + n),
          bank_code: '058',
          currency: 'NGN',
        });
        business.beneficiaryIds.push(Number(beneficiary.id));
      }
    }
    say('every gateway answers; driving traffic');

    const outbox = sandboxOutbox(redis, config);
    const driver = startDriver({
      seed,
      lanes: Number(values.lanes),
      businesses,
      gateways,
      readEmailCode: async (destination, reference) =>
        (await readSandboxMessages(outbox, destination).catch(() => [])).find((m) => m.reference === reference)?.code ?? null,
      readSmsCode: (destination) => {
        const sent = world.termii.delivered.find((m) => m.body.to === destination.slice(1));
        return /verification code is (\d+)\./.exec(String(sent?.body.sms ?? ''))?.[1] ?? null;
      },
      collectionSecret: world.collectionSecret,
      churnReceiverUrl: world.churnReceiver.url,
    });

    const durationMs = minutes * 60_000;
    const faults = faultSchedule(durationMs);
    const faultRng = seededRandom(seed + 1);
    const faultCounts: Record<string, number> = {};
    for (const fault of faults) {
      const wait = started + fault.at - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await injectFault(world, fault, faultRng, faultCounts);
    }
    const left = started + durationMs - Date.now();
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    await driver.stop();
    say(`traffic stopped after ${driver.log.operations} operations; quiet period`);

    // Quiet: every process up, the rail answering; twice the reconciler interval, then until nothing is in flight.
    for (const replica of world.replicas) if (!replica.child) world.start(replica);
    world.standIn.options.verifyDown = false;
    world.standIn.options.mode = 'ok';
    await world.flutterwave?.comeUp();
    await new Promise((r) => setTimeout(r, 2 * RECONCILE_EVERY_MS));
    const quietFrom = Date.now();
    let lastSaid = quietFrom;
    const settled = async () => {
      // Every transfer the bank returned is reversed in the ledger (by its notification, or by the reversal watch).
      const returned = [
        ...[...world.standIn.transfers.values()].filter((t) => t.status === 'reversed'),
        ...[...(world.flutterwave?.transfers.values() ?? [])].filter((t) => t.status === 'REVERSED'),
      ].map((t) => payoutReferenceOf(String(t.reference)));
      const unreversed = await db.ledgerTransaction.count({ where: { reference: { in: returned }, status: 'completed' } });
      const processing = await db.ledgerTransaction.count({ where: { direction: 'out', status: 'processing' } });
      const unrelayed = await db.outboxEvent.count({ where: { relayedAt: null } });
      const pending = await db.webhookDelivery.count({ where: { completedAt: null } });
      const reversalsDueIn = Math.max(0, reversalsDueBy - Date.now());
      const left = { unreversed, processing, unrelayed, pending };
      if (reversalsDueIn === 0 && unreversed + processing + unrelayed + pending === 0) {
        say(`settled after ${((Date.now() - quietFrom) / 1000).toFixed(1)} s of quiet`);
        return true;
      }
      if (Date.now() - lastSaid >= 10_000) {
        lastSaid = Date.now();
        say(`still in flight: ${JSON.stringify(left)}; planned reversals due in ${(reversalsDueIn / 1000).toFixed(1)} s`);
      }
      return false;
    };
    await waitFor(settled, 90_000, 500).catch(() => say('still in flight after 90 s of quiet; checking anyway'));

    const sent = new Map<string, number>();
    const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
    const outboxKeys = (await Promise.all(nodes.map((node) => node.keys(`${config.REDIS_KEY_PREFIX}sandbox:verify:*`)))).flat();
    for (const key of outboxKeys) {
      for (const m of await readSandboxMessages(outbox, key.slice(`${config.REDIS_KEY_PREFIX}sandbox:verify:`.length)))
        sent.set(m.reference, (sent.get(m.reference) ?? 0) + 1);
    }
    const { violations, figures } = await checkSoak({
      db,
      rails: [paystackTruth(world.standIn), ...(world.flutterwave ? [flutterwaveTruth(world.flutterwave)] : [])],
      receivers: world.receivers,
      churnReceiver: world.churnReceiver,
      stableEndpointIds: businesses.flatMap((b) => b.stableEndpoints),
      answers: driver.log,
      codesSent: async (reference) => sent.get(reference) ?? 0,
      smsDelivered: world.termii.delivered,
      inbound: driver.inbound,
      pings: driver.pings,
    });
    for (const r of world.replicas)
      if (r.crashes) violations.push({ rule: 'a service process crashed', detail: `${r.service}#${r.index}: ${r.crashes} time(s)` });
    const report = {
      seed,
      minutes,
      redis: redisMode,
      replicas: replicaCount,
      rails: payoutRails,
      operations: driver.log.operations,
      mix: driver.mix,
      answers: driver.log.counts,
      connectionsLost: driver.log.connectionLost,
      faults: faultCounts,
      restarts: Object.fromEntries(world.replicas.map((r) => [`${r.service}#${r.index}`, r.starts - 1])),
      crashes: world.replicas.reduce((n, r) => n + r.crashes, 0),
      ...figures,
      violations,
    };
    console.log(JSON.stringify(report, null, 2));
    if (values.report) writeFileSync(values.report, JSON.stringify(report, null, 2));
    console.table({
      operations: driver.log.operations,
      faults: Object.values(faultCounts).reduce((a, b) => a + b, 0),
      payouts: Object.values(figures.payouts).reduce((a, b) => a + b, 0),
      'failed over': figures.failedOver,
      events: figures.events,
      deliveries: figures.deliveries,
      'inbound credits': figures.inboundCredits,
      'sms sent': figures.smsSent,
      violations: violations.length,
    });
    say(`payouts failed over to another rail: ${figures.failedOver} (rails ${payoutRails.join(',')}; completed by rail ${JSON.stringify(figures.paidBy)})`);
    ok = violations.length === 0;
    if (!ok) {
      // What the services logged about each answer the API does not allow (by its request id), then the last errors of each.
      for (const d of driver.log.disallowed) {
        const requestId = (d.body as { request_id?: string } | null)?.request_id;
        const lines = requestId
          ? world.replicas.flatMap((r) => r.errors.filter((line) => line.includes(requestId)).map((line) => `${r.service}#${r.index}: ${line}`))
          : [];
        if (lines.length) console.log(`--- logged for ${d.op} ${d.status} (${requestId})\n${lines.join('\n')}`);
      }
      for (const r of world.replicas) if (r.errors.length) console.log(`--- last errors of ${r.service}#${r.index}\n${r.errors.slice(-20).join('\n')}`);
      for (const r of world.replicas)
        for (const crash of r.crashTails) console.log(`--- crash of ${r.service}#${r.index}: the lines before it\n${crash.join('\n')}`);
    }
  } finally {
    redis.disconnect();
    await db.$disconnect();
    const keep = values['keep-database'] || !ok;
    await world.close({ keepDatabase: keep });
    if (keep) say(`database kept for inspection: ${world.databaseName}`);
  }
  say(
    `seed ${seed}: ${ok ? 'no violations' : 'VIOLATIONS'}; replay with npm run soak -- --seed ${seed} --minutes ${minutes} --redis ${redisMode} --replicas ${replicaCount} --rails ${payoutRails.join(',')}`,
  );
  process.exit(ok ? 0 : 1);
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

main().catch((err) => {
  console.error(err);
  say(`seed ${seed}: the soak itself failed; replay with npm run soak -- --seed ${seed}`);
  process.exit(1);
});
