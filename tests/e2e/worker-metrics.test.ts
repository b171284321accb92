// Risk: an operator scaling workers cannot see them: a worker's metrics port
// missing its families, open without the operator token, or ready while
// stopping; outcomes (deliveries, codes, rail calls) not counted.
import { createMetrics, parseMetrics, sampleValue, type CowrieMetrics, type MetricsServer } from '@cowrie/metrics';
import { startPayoutWorker } from '@cowrie/payout-worker';
import { openMetricsPort } from '@cowrie/service-kit';
import { createUserFor, createWorkspaceWithKey, startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { startVerificationWorker } from '@cowrie/verification-dispatcher';
import { startWebhookWorker } from '@cowrie/webhook-sender';
import { fund } from './payout-stack';
import { call, startTestGateway } from '@cowrie/gateway/testing';

const METRICS_TOKEN = 'worker-metrics-token-0123456789';
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let receiver: HttpReceiver;
const workers: { name: string; metrics: CowrieMetrics; port: MetricsServer; stop: () => Promise<void> }[] = [];

async function withPort<T extends { db: any; redis: any; stop: () => Promise<void> }>(name: string, start: (metrics: CowrieMetrics) => Promise<T>): Promise<T> {
  const metrics = createMetrics({ service: name, processMetrics: false });
  const running = await start(metrics);
  const port = (await openMetricsPort({ config: gw.env.config, port: 0, metrics, db: running.db, redis: running.redis, logger: gw.env.logger }))!;
  workers.push({ name, metrics, port, stop: running.stop });
  return running;
}

const portOf = (name: string) => workers.find((w) => w.name === name)!.port;
const scrape = async (name: string) => {
  const res = await fetch(`${portOf(name).url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  return parseMetrics(await res.text());
};
type Samples = Awaited<ReturnType<typeof scrape>>;
const jobsTimed = (samples: Samples, queue: string, job: string) =>
  sampleValue(samples, 'cowrie_job_duration_seconds_count', { queue, job, outcome: 'completed' });
/**
 * Scrapes until `ready`: the gateway hears of a finished job from the queue's
 * events, which can arrive before the worker has run its own 'completed'
 * listener, where job metrics are taken.
 */
const scrapeWhen = (name: string, ready: (samples: Samples) => boolean) =>
  waitFor(async () => {
    const samples = await scrape(name);
    return ready(samples) ? samples : null;
  });

beforeAll(async () => {
  gw = await startTestGateway({ METRICS_TOKEN, PUBLIC_API_RATE_LIMIT: '1000', WEBHOOK_TIMEOUT_MS: '2000' });
  receiver = await startHttpReceiver();
  await withPort('payout-worker', (metrics) => startPayoutWorker(gw.env.config, gw.env.logger, { metrics }));
  await withPort('verification-dispatcher', (metrics) => startVerificationWorker(gw.env.config, gw.env.logger, { metrics }));
  await withPort('webhook-sender', (metrics) => startWebhookWorker(gw.env.config, gw.env.logger, { metrics }));
});
afterAll(async () => {
  for (const w of workers) {
    await w.stop();
    await w.port.close();
  }
  await receiver?.close();
  await gw?.close();
});

test('a worker port answers /healthz and /readyz, and /metrics only with the operator token', async () => {
  const { url } = portOf('payout-worker');
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  expect((await fetch(`${url}/metrics`)).status).toBe(401);
  expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status).toBe(401);
  expect((await fetch(`${url}/nothing`)).status).toBe(404);
});

test('payout jobs and rail calls are timed on the payout-worker port', async () => {
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Metrics' });
  await fund(gw.env.db, workspace.id, 'NGN', '5000');
  const ok = await call(gw.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', amount: 100, account_number: '0123456789', bank_code: '058' },
  });
  expect(ok.body.data.status).toBe('completed');
  const thrown = await call(gw.url, 'POST', '/v1/transfers', {
    token: key,
    body: { currency: 'NGN', amount: 100, account_number: '0000000002', bank_code: '058' },
  });
  expect(thrown.status).toBe(502);
  const samples = await scrapeWhen('payout-worker', (s) => jobsTimed(s, 'payouts', 'payout.execute') === 2);
  expect(
    sampleValue(samples, 'cowrie_job_duration_seconds_count', { queue: 'payouts', job: 'payout.execute', outcome: 'completed', service: 'payout-worker' }),
  ).toBe(2);
  expect(sampleValue(samples, 'cowrie_rail_call_duration_seconds_count', { rail: 'payout:sandbox', operation: 'transfer', outcome: 'ok' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_rail_call_duration_seconds_count', { rail: 'payout:sandbox', operation: 'transfer', outcome: 'error' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_rail_call_errors_total', { rail: 'payout:sandbox', operation: 'transfer' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_queue_jobs', { queue: 'payouts', state: 'waiting' })).toBe(0);
  // Payouts by the payout's outcome: one completed, the other as the rail's throw left it.
  expect(sampleValue(samples, 'cowrie_payouts_total', { outcome: 'completed' })).toBe(1);
  expect(samples.filter((s) => s.name === 'cowrie_payouts_total').reduce((sum, s) => sum + s.value, 0)).toBe(2);
  expect(sampleValue(samples, 'cowrie_payouts_processing_oldest_seconds')).toBeGreaterThanOrEqual(0);
});

test('the payout worker audits the ledger at start and reports it: when an audit last ran to the end, and what it found', async () => {
  const samples = await scrapeWhen('payout-worker', (s) => (sampleValue(s, 'cowrie_ledger_audit_last_success_timestamp_seconds') ?? 0) > 0);
  expect(sampleValue(samples, 'cowrie_ledger_audit_last_success_timestamp_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
  expect(sampleValue(samples, 'cowrie_ledger_audit_violations')).toBe(0);
  expect(sampleValue(samples, 'cowrie_ledger_audit_failures_total')).toBe(0);
});

test('code deliveries are counted on the verification-dispatcher port', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db, { name: 'Codes' });
  expect((await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination: '+2348011111111' } })).status).toBe(201);
  expect((await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'bounce@example.com' } })).status).toBe(400);
  const samples = await scrapeWhen('verification-dispatcher', (s) => jobsTimed(s, 'verifications', 'verification.deliver') === 2);
  expect(sampleValue(samples, 'cowrie_verification_outcomes_total', { stage: 'delivery', outcome: 'sent' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_verification_outcomes_total', { stage: 'delivery', outcome: 'failed' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_rail_call_duration_seconds_count', { rail: 'verification:sandbox', operation: 'send', outcome: 'ok' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_job_duration_seconds_count', { queue: 'verifications', job: 'verification.deliver', outcome: 'completed' })).toBe(2);
});

test('webhook delivery outcomes and attempts are counted on the webhook-sender port', async () => {
  const { workspace } = await createWorkspaceWithKey(gw.env.db, { name: 'Hooks' });
  const user = await createUserFor(gw.env.db, workspace.id);
  const token = (await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).body.data.token;
  const endpoint = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${receiver.url}/hook` } });
  expect((await call(gw.url, 'POST', `/webhook-endpoints/${endpoint.body.data.id}/test`, { token })).body.data.ok).toBe(true);
  const samples = await scrapeWhen('webhook-sender', (s) => (jobsTimed(s, 'webhooks', 'webhook.deliver') ?? 0) >= 1);
  expect(sampleValue(samples, 'cowrie_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_webhook_delivery_attempts_sum', { outcome: 'delivered' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_webhook_endpoint_deliveries_total', { endpoint: String(endpoint.body.data.id), outcome: 'delivered' })).toBe(1);
  expect(sampleValue(samples, 'cowrie_job_duration_seconds_count', { queue: 'webhooks', job: 'webhook.deliver', outcome: 'completed' })).toBeGreaterThanOrEqual(
    1,
  );
});

test('a stopping worker reports not ready on its port', async () => {
  const port = portOf('webhook-sender');
  port.draining();
  expect((await fetch(`${port.url}/readyz`)).status).toBe(503);
  expect((await fetch(`${port.url}/healthz`)).status).toBe(200);
});

test('the counters the payout alerts read have a series per rail at 0 from the start, on the payout worker and the gateway (a first event then shows as an increase)', async () => {
  const samples = await scrape('payout-worker');
  const gateway = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
  for (const rail of gw.env.config.PAYOUT_RAILS) {
    for (const family of ['cowrie_payout_found_after_move_total', 'cowrie_payout_found_after_fail_total', 'cowrie_payouts_lost_by_rail_total']) {
      expect([family, rail, sampleValue(samples, family, { rail })]).toEqual([family, rail, 0]);
      expect([family, rail, sampleValue(gateway, family, { rail })]).toEqual([family, rail, 0]);
    }
  }
});
