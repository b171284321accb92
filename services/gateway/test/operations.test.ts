// Risk: operator surfaces left open or missing: metrics or the queue board
// reachable without the operator credential, metrics labelled by raw paths
// (one series per id), a reference page that needs a CDN.
import { parseMetrics, sampleValue } from '@cowrie/metrics';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const OPS = { OPS_USERNAME: 'operator', OPS_PASSWORD: 'correct horse battery staple' };
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ METRICS_TOKEN, ...OPS, VERIFY_SYNC_WAIT_MS: '200' });
  key = (await createWorkspaceWithKey(gw.env.db, { name: 'Ops' })).key;
});
afterAll(() => gw?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers });
const scrape = async () => parseMetrics(await (await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text());

test('/docs renders the reference page from the locally served Scalar bundle, no CDN', async () => {
  const page = await get('/docs');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  const html = await page.text();
  expect(html).toContain('<script src="/docs/scalar.js"></script>');
  expect(html).toContain('<script src="/docs/init.js"></script>');
  expect(html).not.toMatch(/https?:\/\//);
  const init = await (await get('/docs/init.js')).text();
  expect(init).toContain("url: '/v1/openapi.json'");
  expect(init).not.toMatch(/https?:\/\//);
  const bundle = await get('/docs/scalar.js');
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
});

test('/metrics needs the operator token', async () => {
  expect((await get('/metrics')).status).toBe(401);
  expect((await get('/metrics', { authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
  expect((await get('/metrics', { authorization: `Bearer ${key}` })).status).toBe(401);
  const ok = await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toMatch(/text\/plain/);
});

test('/metrics counts requests by route template and status, and reports queue depth', async () => {
  await call(gw.url, 'GET', '/v1/collections/12345', { token: key });
  await call(gw.url, 'GET', '/v1/collections/67890', { token: key });
  await call(gw.url, 'GET', '/v1/collections/1');
  await call(gw.url, 'GET', '/v1/channels', { token: key });
  await call(gw.url, 'GET', '/nowhere/at/all');
  const samples = await scrape();
  const requests = (route: string, status: string) => sampleValue(samples, 'cowrie_http_requests_total', { method: 'GET', route, status, service: 'gateway' });
  expect(requests('/v1/collections/:id', '404')).toBe(2);
  // Refused before routing (no key), still labelled by its template.
  expect(requests('/v1/collections/:id', '401')).toBe(1);
  expect(requests('/v1/channels', '200')).toBe(1);
  expect(requests('unmatched', '404')).toBe(1);
  expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('12345')))).toBe(false);
  expect(sampleValue(samples, 'cowrie_http_request_duration_seconds_count', { route: '/v1/channels', status: '200' })).toBe(1);
  for (const queue of ['payouts', 'verifications', 'webhooks']) {
    expect(sampleValue(samples, 'cowrie_queue_jobs', { queue, state: 'waiting' })).toBe(0);
  }
  const text = await (await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text();
  for (const family of [
    'cowrie_job_duration_seconds',
    'cowrie_job_failures_total',
    'cowrie_webhook_deliveries_total',
    'cowrie_rail_call_duration_seconds',
    'cowrie_rail_call_errors_total',
    'cowrie_verification_outcomes_total',
  ]) {
    expect(text).toContain(`# TYPE ${family} `);
  }
});

test('the collection rail is timed, and verification starts are counted', async () => {
  await call(gw.url, 'POST', '/v1/deposits', { token: key, body: { channel: 'collection_va', amount: 100 } });
  const samples = await scrape();
  expect(sampleValue(samples, 'cowrie_rail_call_duration_seconds_count', { rail: 'collection:sandbox', operation: 'openOneOffAccount', outcome: 'ok' })).toBe(
    1,
  );
  await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'nobody@example.com' } });
  // No dispatcher runs here: the start is answered from the row after the sync wait.
  expect(sampleValue(await scrape(), 'cowrie_verification_outcomes_total', { stage: 'start', outcome: 'started' })).toBe(1);
});

test('/ops/queues needs the operator credential and lists every queue', async () => {
  expect((await get('/ops/queues')).status).toBe(401);
  expect((await get('/ops/queues', { authorization: basic('operator', 'wrong') })).status).toBe(401);
  expect((await get('/ops/queues', { authorization: `Bearer ${key}` })).status).toBe(401);
  const page = await get('/ops/queues', { authorization: basic(OPS.OPS_USERNAME, OPS.OPS_PASSWORD) });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root">');
  const api = await get('/ops/queues/api/queues', { authorization: basic(OPS.OPS_USERNAME, OPS.OPS_PASSWORD) });
  expect(api.status).toBe(200);
  const names = ((await api.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
  expect(names).toEqual(expect.arrayContaining(['payouts', 'verifications', 'webhooks']));
});

test('without METRICS_TOKEN and OPS_* the operator routes do not exist', async () => {
  const bare = await startTestGateway();
  try {
    expect((await fetch(`${bare.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
    expect((await fetch(`${bare.url}/ops/queues`, { headers: { authorization: basic(OPS.OPS_USERNAME, OPS.OPS_PASSWORD) } })).status).toBe(404);
    // The document and the reference page stay public.
    expect((await fetch(`${bare.url}/v1/openapi.json`)).status).toBe(200);
  } finally {
    await bare.close();
  }
});

test('the queue board can be read-only (the production default): actions are refused, reading works', async () => {
  const readOnly = await startTestGateway({ ...OPS, OPS_BOARD_READ_ONLY: 'true' });
  const auth = { authorization: basic(OPS.OPS_USERNAME, OPS.OPS_PASSWORD) };
  try {
    expect(readOnly.env.config.OPS_BOARD_READ_ONLY).toBe(true);
    expect((await fetch(`${readOnly.url}/ops/queues/api/queues`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${readOnly.url}/ops/queues/api/queues/payouts/pause`, { method: 'PUT', headers: auth })).status).toBe(405);
  } finally {
    await readOnly.close();
  }
  // Outside production the board is writable unless told otherwise.
  expect(gw.env.config.OPS_BOARD_READ_ONLY).toBe(false);
  expect((await fetch(`${gw.url}/ops/queues/api/queues/payouts/pause`, { method: 'PUT', headers: auth })).status).toBe(200);
  expect((await fetch(`${gw.url}/ops/queues/api/queues/payouts/resume`, { method: 'PUT', headers: auth })).status).toBe(200);
});

test('failed operator sign-ins are counted per address and logged without the credentials; past 20, even the right one waits', async () => {
  const fresh = await startTestGateway({ ...OPS });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await fetch(`${fresh.url}/ops/queues`, { headers: { authorization: basic('operator', `guess-${i}`) } })).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429]);
    const right = await fetch(`${fresh.url}/ops/queues`, { headers: { authorization: basic(OPS.OPS_USERNAME, OPS.OPS_PASSWORD) } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    const logged = fresh.env.logLines.filter((l) => l.includes('operator sign-in failed'));
    expect(logged).toHaveLength(20);
    expect(logged.join('\n')).not.toContain('guess-');
  } finally {
    await fresh.close();
  }
});
