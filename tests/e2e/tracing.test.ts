// Risk: traces that do not join up (the gateway's request, the payout job it
// queued and that job's rail call in separate traces, so an operator cannot
// follow one transfer), a protocol of OTEL_EXPORTER_OTLP_PROTOCOL ignored, log
// lines without the trace id, or tracing that costs something when it is off.
// The compiled gateway, payout-worker and webhook-sender run as production
// runs them, with the standard OTEL_* variables, exporting to a real OTLP/HTTP
// receiver here: the gateway over http/protobuf, the workers over http/json.
import { createWorkspaceWithKey, freePort, spawnServiceProcess, startHttpReceiver, waitFor, type HttpReceiver, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { encryptSecret } from '@cowrie/core';
import { startPaystackStandIn, type PaystackStandIn } from '@cowrie/paystack/testing';
import { spansOf, type ReceivedSpan } from './otlp-spans';
import { call } from '@cowrie/gateway/testing';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

let env: TestEnv;
let standIn: PaystackStandIn;
let collector: HttpReceiver;

beforeAll(async () => {
  standIn = await startPaystackStandIn();
  // The OTLP/HTTP answer of a collector: an empty ExportTraceServiceResponse in the request's encoding.
  collector = await startHttpReceiver((req) =>
    String(req.headers['content-type']).startsWith('application/json')
      ? { status: 200, body: '{}', headers: { 'content-type': 'application/json' } }
      : { status: 200, body: '', headers: { 'content-type': 'application/x-protobuf' } },
  );
  env = await createTestEnv({ PAYOUT_RAIL: 'paystack', PAYSTACK_SECRET_KEY: standIn.secret, PAYSTACK_BASE_URL: standIn.url });
});
afterAll(async () => {
  await env?.cleanup();
  await collector?.close();
  await standIn?.close();
});

const otel = (protocol: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  // Spans leave within 100 ms rather than the default 5 s.
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

async function stop(...processes: Array<ReturnType<typeof spawnServiceProcess>>) {
  for (const p of processes) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
}

test('one trace joins a transfer: the gateway request (http/protobuf), its payout job and its rail call (http/json), with the trace id in the log lines', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const railEnv = { PAYOUT_RAIL: 'paystack', PAYSTACK_SECRET_KEY: standIn.secret, PAYSTACK_BASE_URL: standIn.url };
  const gateway = spawnServiceProcess(env.config, 'gateway', { PORT: String(port), HOST: '127.0.0.1', ...railEnv, ...otel('http/protobuf') });
  const worker = spawnServiceProcess(env.config, 'payout-worker', { ...railEnv, LOG_LEVEL: 'debug', ...otel('http/json') });
  try {
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => null))?.ok, 30_000, 100);
    await waitFor(async () => worker.output().includes('worker consuming'), 30_000, 100);
    const { workspace, key } = await createWorkspaceWithKey(env.db);
    await fundWallet(env.db, workspace.id, '1000', 'NGN');

    const res = await call(base, 'POST', '/v1/transfers', {
      token: key,
      body: { currency: 'NGN', amount: 250, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'completed', provider: 'paystack' });
    const reference = res.body.data.reference as string;
    const railCall = (s: ReceivedSpan) =>
      s.service === 'payout-worker' &&
      s.kind === CLIENT &&
      String(s.attributes['url.full'] ?? s.attributes['http.url'] ?? '').startsWith(`${standIn.url}/transfer`);
    const jobSpan = (s: ReceivedSpan) => s.service === 'payout-worker' && s.kind === CONSUMER && s.name === 'process payouts';
    const request = (s: ReceivedSpan) =>
      s.service === 'gateway' && s.kind === SERVER && /^POST\b/.test(s.name) && JSON.stringify(s.attributes).includes('/v1/transfers');

    // The gateway's server span for the request (a root); the same trace holds the worker's job (BullMQ's
    // consumer span, context carried in the job) and the job's POST to the rail.
    let gatewaySpan: ReceivedSpan | undefined;
    await waitFor(
      async () => {
        const spans = spansOf(collector.requests);
        gatewaySpan = spans.find(request);
        const inTrace = spans.filter((s) => s.traceId === gatewaySpan?.traceId);
        return inTrace.some(railCall) && inTrace.some(jobSpan);
      },
      20_000,
      100,
    );
    const trace = spansOf(collector.requests).filter((s) => s.traceId === gatewaySpan!.traceId);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const job = trace.find(jobSpan);
    const post = trace.find(railCall)!;
    // The rail call is inside the job (its ancestors reach the job's span), and the job inside the request.
    const ancestors = (span: ReceivedSpan) => {
      const out: ReceivedSpan[] = [];
      for (let p = byId.get(span.parentSpanId); p; p = byId.get(p.parentSpanId)) out.push(p);
      return out;
    };
    expect(ancestors(post).map((s) => s.spanId)).toContain(job!.spanId);
    expect(ancestors(job!).map((s) => s.spanId)).toContain(gatewaySpan!.spanId);
    expect(gatewaySpan!.parentSpanId).toBe('');
    // Postgres and Redis calls are spans of the same trace.
    const dbSystem = (s: ReceivedSpan) => s.attributes['db.system'] ?? s.attributes['db.system.name'];
    expect(trace.some((s) => s.service === 'gateway' && dbSystem(s) === 'postgresql')).toBe(true);
    expect(trace.some((s) => s.service === 'payout-worker' && dbSystem(s) === 'postgresql')).toBe(true);
    expect(trace.some((s) => dbSystem(s) === 'redis')).toBe(true);
    // Redis spans name the command and its first argument (a key, a script's sha), never the values: not a job's data.
    const redisTexts = trace.filter((s) => dbSystem(s) === 'redis').map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
    for (const text of redisTexts) expect(text).toMatch(/^\S+( \S+( \[\d+ other arguments\])?)?$/);
    expect(redisTexts.some((text) => text.includes('other arguments'))).toBe(true);
    expect(redisTexts.join('\n')).not.toMatch(/transactionId/);
    // Each service exported in the protocol it was told.
    expect(new Set(trace.filter((s) => s.service === 'gateway').map((s) => s.protocol))).toEqual(new Set(['http/protobuf']));
    expect(new Set(trace.filter((s) => s.service === 'payout-worker').map((s) => s.protocol))).toEqual(new Set(['http/json']));

    // The lines the worker wrote while running this payout's job carry its trace id.
    const lines = worker
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const jobLines = lines.filter((l) => l.msg === 'job done' || JSON.stringify(l).includes(reference));
    expect(jobLines.length).toBeGreaterThan(0);
    expect(jobLines.filter((l) => l.msg === 'job done').every((l) => l.trace_id === gatewaySpan!.traceId)).toBe(true);
    expect(jobLines.some((l) => l.trace_id === gatewaySpan!.traceId && typeof l.span_id === 'string')).toBe(true);
    // Lines written outside any span (start-up) carry none.
    expect(lines.find((l) => l.msg === 'worker consuming')).not.toHaveProperty('trace_id');
  } finally {
    await stop(gateway, worker);
  }
});

test("one trace joins an event's relay (the add of its delivery job) and the delivery's job and POST", async () => {
  const receiver = await startHttpReceiver();
  const { workspace } = await createWorkspaceWithKey(env.db);
  await env.db.webhookEndpoint.create({
    data: { workspaceId: workspace.id, url: `${receiver.url}/hook`, events: ['*'], secretEncrypted: encryptSecret('0'.repeat(64), env.config.ENCRYPTION_KEY) },
  });
  await env.db.outboxEvent.create({ data: { workspaceId: workspace.id, event: 'transfer.completed', payload: { reference: 'trace-me' } } });
  const sender = spawnServiceProcess(env.config, 'webhook-sender', { WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', ...otel('http/json') });
  try {
    const post = (s: ReceivedSpan) =>
      s.service === 'webhook-sender' &&
      s.kind === CLIENT &&
      String(s.attributes['url.full'] ?? s.attributes['http.url'] ?? '').startsWith(`${receiver.url}/hook`);
    let trace: ReceivedSpan[] = [];
    await waitFor(
      async () => {
        const spans = spansOf(collector.requests);
        const sent = spans.find(post);
        trace = sent ? spans.filter((s) => s.traceId === sent.traceId) : [];
        return trace.some((s) => s.kind === CONSUMER) && trace.some((s) => s.kind === PRODUCER);
      },
      20_000,
      100,
    );
    expect(receiver.requests.filter((r) => r.path === '/hook')).toHaveLength(1);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const ancestors = (span: ReceivedSpan) => {
      const out: ReceivedSpan[] = [];
      for (let p = byId.get(span.parentSpanId); p; p = byId.get(p.parentSpanId)) out.push(p);
      return out;
    };
    const chain = ancestors(trace.find(post)!);
    // The POST is inside the delivery job's span, which continues the relay's add.
    expect(chain.find((s) => s.kind === CONSUMER)).toMatchObject({ service: 'webhook-sender', name: 'process webhooks' });
    expect(chain.find((s) => s.kind === PRODUCER)).toMatchObject({ service: 'webhook-sender' });
    expect(chain.findIndex((s) => s.kind === CONSUMER)).toBeLessThan(chain.findIndex((s) => s.kind === PRODUCER));
  } finally {
    await stop(sender);
    await receiver.close();
  }
});

test('without OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced and no OpenTelemetry SDK, instrumentation or bullmq-otel module is loaded', async () => {
  const port = await freePort();
  const before = collector.requests.length;
  // The compiled gateway loaded into a process that, once it answers, lists the modules it loaded.
  const gateway = spawnServiceProcess(env.config, 'gateway', {
    PORT: String(port),
    HOST: '127.0.0.1',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    NODE_OPTIONS: `--require ${require.resolve('./fixtures/list-otel-modules.cjs')}`,
  });
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok, 30_000, 100);
    const { key } = await createWorkspaceWithKey(env.db);
    expect((await call(`http://127.0.0.1:${port}`, 'GET', '/v1/banks', { token: key })).status).toBe(200);
  } finally {
    await stop(gateway);
  }
  const listed = /otel-modules: (\[.*\])/.exec(gateway.output());
  expect(listed).not.toBeNull();
  const loaded = JSON.parse(listed![1]!) as string[];
  expect(loaded.filter((m) => /@opentelemetry[\\/](sdk-|instrumentation|exporter)|bullmq-otel/.test(m))).toEqual([]);
  expect(collector.requests.length).toBe(before);
});
