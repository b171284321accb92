// Risk: a test helper that reaches live data or tells a live key it exists;
// one that takes a shortcut around the real path (money credited without the
// inbound path's checks or its event, a code made up rather than the one
// sent, a reversal paid back twice, a sample event the documented schema
// refuses); one that acts on another workspace's account, verification or
// payout, or without the scope the real action needs. Gateway, payout worker
// (with its sandbox-notice loop), verification dispatcher and webhook sender,
// with a real receiver on the test side's endpoints.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { auditLedger, findWallet } from '@cowrie/ledger';
import { receivePayoutNotification } from '@cowrie/payouts';
import { createModeRails } from '@cowrie/rails';
import { createKeyFor, createUserFor, createWorkspaceWithKey, startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startVerificationWorker, type RunningVerificationWorker } from '@cowrie/verification-dispatcher';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { TRIGGERABLE_EVENTS, WEBHOOK_EVENTS, webhookEventTypes } from '@cowrie/gateway';
import { OpenApiContract } from '../contract/openapi-contract';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
let dispatcher: RunningVerificationWorker;
let sender: RunningWebhookWorker;
let receiver: HttpReceiver;
let contract: OpenApiContract;
/** The business's keys: live, test (every scope), test with `read` only. */
let liveKey: string;
let testKey: string;
let readKey: string;
let testId: number;
/** Another business's test key and test workspace. */
let otherKey: string;
let otherTestId: number;

const TRANSFER_IN = '/v1/test_helpers/deposits/transfer_in';
const TRIGGER = '/v1/test_helpers/webhooks/trigger';
const codePath = (reference: string) => `/v1/test_helpers/verifications/${reference}/code`;
const reversePath = (reference: string) => `/v1/test_helpers/transfers/${reference}/reverse`;

const get = (path: string, token: string, headers: Record<string, string> = {}) => call(stack.url, 'GET', path, { token, headers });
const post = (path: string, token: string, body: unknown = {}, headers: Record<string, string> = {}) => call(stack.url, 'POST', path, { token, body, headers });
const available = async (workspaceId: number) => (await findWallet(stack.env.db, workspaceId, 'NGN'))!.balance.toFixed(6);
/** The bodies the test side's endpoint received, of one event. */
const delivered = (event: string) => receiver.requests.filter((r) => r.path === '/test' && r.headers['x-cowrie-event'] === event);
const bodyOf = (r: { rawBody: Buffer }) => JSON.parse(r.rawBody.toString('utf8'));
/** JSON with every object's keys sorted. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );

beforeAll(async () => {
  stack = await startPayoutStack({ WEBHOOK_TIMEOUT_MS: '2000' });
  dispatcher = await startVerificationWorker(stack.env.config, stack.env.logger);
  sender = await startWebhookWorker(stack.env.config, stack.env.logger);
  receiver = await startHttpReceiver();
  const business = await createWorkspaceWithKey(stack.env.db, { name: 'Helpers Ltd' });
  liveKey = business.key;
  testId = business.workspace.test_workspace_id;
  testKey = await createKeyFor(stack.env.db, business.workspace.id, 'test');
  readKey = await createKeyFor(stack.env.db, business.workspace.id, 'test', ['read']);
  const other = await createWorkspaceWithKey(stack.env.db, { name: 'Someone Else Ltd' });
  otherKey = await createKeyFor(stack.env.db, other.workspace.id, 'test');
  otherTestId = other.workspace.test_workspace_id;
  await fund(stack.env.db, testId, 'NGN', '1000');
  await fund(stack.env.db, otherTestId, 'NGN', '1000');
  // One endpoint on each side of the business, every event.
  const user = await createUserFor(stack.env.db, business.workspace.id);
  const session = (await call(stack.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } })).body.data.token;
  for (const [path, headers] of [
    ['/test', { 'cowrie-mode': 'test' }],
    ['/live', {}],
  ] as const) {
    const endpoint = await call(stack.url, 'POST', '/webhook-endpoints', { token: session, headers, body: { url: `${receiver.url}${path}`, events: ['*'] } });
    expect(endpoint.status).toBe(201);
  }
  contract = new OpenApiContract((await call(stack.url, 'GET', '/v1/openapi.json')).body);
});
afterAll(async () => {
  await sender?.stop();
  await dispatcher?.stop();
  await receiver?.close();
  await stack?.close();
});

test('to a live key every helper is an unknown route: 404 not_found, whatever its scope, input or Idempotency-Key', async () => {
  const readOnlyLive = (await createWorkspaceWithKey(stack.env.db, { scopes: ['read'] })).key;
  const unknown = await post('/v1/test_helpers/nothing_here', liveKey);
  expect(unknown.status).toBe(404);
  const calls = [
    ['POST', TRANSFER_IN, { account_number: '8000000000', amount: 100 }],
    ['POST', TRANSFER_IN, { amount: 'not an amount' }],
    ['GET', codePath('00000000-0000-4000-8000-000000000000'), undefined],
    ['POST', reversePath('snd_nothing'), {}],
    ['POST', TRIGGER, { event: 'transfer.completed' }],
    ['POST', TRIGGER, { event: 'no.such.event' }],
  ] as const;
  for (const token of [liveKey, readOnlyLive]) {
    for (const [method, path, body] of calls) {
      for (const headers of [{}, { 'Idempotency-Key': `live-${path}` }] as Record<string, string>[]) {
        const res = await call(stack.url, method, path, { token, body, headers: method === 'POST' ? headers : {} });
        expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 404, code: 'not_found' });
        expect(res.body.error.message).toBe(`No route for ${method} ${path}`);
        contract.check(method, path, res.status, res.body);
      }
    }
  }
  // The unknown route's answer, word for word.
  expect(unknown.body.error.message).toBe('No route for POST /v1/test_helpers/nothing_here');
  // Without a key the /v1 router asks for one first, as for any route.
  expect((await call(stack.url, 'POST', TRANSFER_IN, { body: {} })).status).toBe(401);
});

test('transfer_in credits a reserved account through the inbound path: the wallet, collection.successful to the test endpoint, never the live one', async () => {
  const account = await post('/v1/reserved-accounts', testKey, { customer_name: 'Chidi Eze', customer_email: 'chidi@example.com', reference: 'helpers-1' });
  expect(account.status).toBe(201);
  const number = account.body.data.account.account_number as string;
  const before = await available(testId);
  const res = await post(TRANSFER_IN, testKey, { account_number: number, amount: '250.5' });
  expect(res.status).toBe(201);
  contract.check('POST', TRANSFER_IN, res.status, res.body);
  expect(res.body.data).toMatchObject({
    status: 'credited',
    reason: null,
    channel: 'reserved_va',
    account_number: number,
    amount: '250.500000',
    currency: 'NGN',
    reserved_account_id: account.body.data.id,
    collection_id: null,
    transaction_reference: expect.stringMatching(/^crd_/),
  });
  expect(await available(testId)).toBe((Number(before) + 250.5).toFixed(6));
  const credit = (await get('/v1/transactions?type=credit&limit=100', testKey)).body.data.find(
    (t: { reference: string }) => t.reference === res.body.data.transaction_reference,
  );
  expect(credit).toMatchObject({ status: 'completed', channel: 'reserved_va', provider: 'sandbox', providerReference: res.body.data.provider_reference });
  const event = await waitFor(() => delivered('collection.successful').find((r) => bodyOf(r).data.provider_reference === res.body.data.provider_reference));
  contract.checkWebhook(event);
  expect(bodyOf(event)).toMatchObject({ livemode: false, data: { reference: account.body.data.reference, amount: '250.500000', channel: 'reserved_va' } });
  expect(receiver.requests.some((r) => r.path === '/live' && r.rawBody.toString().includes(res.body.data.provider_reference))).toBe(false);
});

test('transfer_in into a one-off collection follows its rules: a wrong amount is recorded unmatched, the exact amount pays it', async () => {
  const collection = await post('/v1/collections', testKey, { amount: 2500, customer_name: 'Ada Obi', customer_email: 'ada@example.com', expires_in: 600 });
  expect(collection.status).toBe(201);
  const number = collection.body.data.account.account_number as string;
  const before = await available(testId);
  const short = await post(TRANSFER_IN, testKey, { account_number: number, amount: 1000 });
  expect(short.status).toBe(201);
  expect(short.body.data).toMatchObject({ status: 'unmatched', reason: 'amount_mismatch', channel: 'collection_va', transaction_reference: null });
  expect(await available(testId)).toBe(before);
  const paid = await post(TRANSFER_IN, testKey, { account_number: number, amount: 2500 });
  expect(paid.body.data).toMatchObject({ status: 'credited', collection_id: collection.body.data.id });
  expect((await get(`/v1/collections/${collection.body.data.id}`, testKey)).body.data).toMatchObject({ status: 'successful', amount_paid: '2500.000000' });
  expect(await available(testId)).toBe((Number(before) + 2500).toFixed(6));
  expect((await stack.env.db.inboundPayment.findMany({ where: { collectionId: collection.body.data.id } })).map((p) => p.status).sort()).toEqual([
    'credited',
    'unmatched',
  ]);
});

test("transfer_in refuses bad input, another workspace's account, an unknown number and a key without collections:write", async () => {
  const theirs = await post('/v1/reserved-accounts', otherKey, { customer_name: 'Bola Ade', customer_email: 'bola@example.com', reference: 'theirs' });
  const theirNumber = theirs.body.data.account.account_number as string;
  const theirBalance = await available(otherTestId);
  for (const [body, field] of [
    [{ account_number: theirNumber }, 'amount'],
    [{ account_number: theirNumber, amount: 0 }, 'amount'],
    [{ account_number: theirNumber, amount: '1.1234567' }, 'amount'],
    [{ amount: 10 }, 'account_number'],
    [{ account_number: '12-34', amount: 10 }, 'account_number'],
  ] as const) {
    const res = await post(TRANSFER_IN, testKey, body);
    expect({ body, status: res.status, code: res.body.error.code, field: res.body.error.details?.field }).toEqual({
      body,
      status: 400,
      code: 'invalid_request',
      field,
    });
  }
  for (const number of [theirNumber, '8999999999']) {
    const res = await post(TRANSFER_IN, testKey, { account_number: number, amount: 10 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    contract.check('POST', TRANSFER_IN, res.status, res.body);
  }
  expect(await available(otherTestId)).toBe(theirBalance);
  const denied = await post(TRANSFER_IN, readKey, { account_number: theirNumber, amount: 10 });
  expect(denied.status).toBe(403);
  expect(denied.body.error).toMatchObject({ code: 'insufficient_scope', details: { required_scope: 'collections:write' } });
});

test('the code helper answers the code the sandbox sent, which verifies the check; never cached', async () => {
  const destination = '+2348030000456';
  const started = await post('/v1/verifications', testKey, { channel: 'sms', destination });
  expect(started.status).toBe(201);
  const reference = started.body.data.reference as string;
  const res = await waitFor(async () => {
    const answer = await get(codePath(reference), testKey);
    return answer.status === 200 ? answer : null;
  });
  contract.check('GET', codePath(reference), res.status, res.body);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const [sent] = await readSandboxMessages(sandboxOutbox(stack.env.redis, stack.env.config), destination, 'test');
  expect(res.body.data).toEqual({ reference, code: sent!.code, sent_at: sent!.sent_at });
  const checked = await post(`/v1/verifications/${reference}/check`, testKey, { code: res.body.data.code });
  expect(checked.body.data.status).toBe('verified');
});

test("the code helper is 404 for another workspace's verification, an unknown or malformed reference, and a code never sent; 403 without verification:write", async () => {
  const theirs = await post('/v1/verifications', otherKey, { channel: 'email', destination: 'theirs@example.com' });
  expect(theirs.status).toBe(201);
  // Undeliverable: the row exists, failed, and the sandbox sent nothing.
  const bounced = await post('/v1/verifications', testKey, { channel: 'email', destination: 'bounce@example.com' });
  expect(bounced.status).toBe(400);
  for (const reference of [theirs.body.data.reference, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', bounced.body.error.details.reference]) {
    const res = await get(codePath(reference), testKey);
    expect({ reference, status: res.status, code: res.body.error.code }).toEqual({ reference, status: 404, code: 'not_found' });
    contract.check('GET', codePath(reference), res.status, res.body);
  }
  const denied = await get(codePath(theirs.body.data.reference), readKey);
  expect(denied.status).toBe(403);
  expect(denied.body.error.details).toEqual({ required_scope: 'verification:write' });
});

test('reverse makes a completed test payout reversed: the money back once, one transfer.reversed event, whatever else then hears of it', async () => {
  const before = await available(testId);
  const sent = await post('/v1/transfers', testKey, { currency: 'NGN', amount: 100, account_number: '0123456789', bank_code: '058' });
  expect(sent.body.data).toMatchObject({ status: 'completed', provider: 'sandbox' });
  const reference = sent.body.data.reference as string;
  expect(await available(testId)).toBe((Number(before) - 100).toFixed(6));

  const res = await post(reversePath(reference), testKey);
  expect(res.status).toBe(200);
  contract.check('POST', reversePath(reference), res.status, res.body);
  expect(res.body.data).toMatchObject({ reference, status: 'reversed', metadata: { reversed_by: expect.stringMatching(/^crd_/) } });
  expect(await available(testId)).toBe(before);

  // Again, and the notification the sandbox bank's loop sends too: nothing more.
  const again = await post(reversePath(reference), testKey);
  expect(again.body.data).toMatchObject({ reference, status: 'reversed' });
  const rails = createModeRails(stack.env.config, { redis: stack.env.redis, sql: stack.env.sql });
  await receivePayoutNotification(
    { sql: stack.env.sql, rails, log: stack.env.logger },
    { provider: 'sandbox', event: 'transfer.reversed', reference, payload: {} },
  );
  const credits = await stack.env.db.ledgerTransaction.findMany({ where: { workspaceId: testId, category: 'reversal' } });
  expect(credits.filter((c) => (c.metadata as { reversal_of?: string }).reversal_of === reference)).toHaveLength(1);
  expect(
    await stack.env.db.outboxEvent.count({ where: { workspaceId: testId, event: 'transfer.reversed', payload: { path: ['reference'], equals: reference } } }),
  ).toBe(1);
  expect(await available(testId)).toBe(before);
  const event = await waitFor(() => delivered('transfer.reversed').find((r) => bodyOf(r).data.reference === reference));
  contract.checkWebhook(event);
  expect(bodyOf(event)).toMatchObject({ livemode: false, data: { status: 'reversed' } });
  expect((await auditLedger(stack.env.db)).violations).toEqual([]);
});

test("reverse is 400 for a payout that is not completed, 404 for another workspace's or an unknown reference, 403 without payouts:write", async () => {
  const failed = await post('/v1/transfers', testKey, { currency: 'NGN', amount: 10, account_number: '0000000001', bank_code: '058' });
  expect(failed.body.data.status).toBe('failed');
  const refused = await post(reversePath(failed.body.data.reference), testKey);
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { status: 'failed' } });
  contract.check('POST', reversePath(failed.body.data.reference), refused.status, refused.body);

  const theirs = await post('/v1/transfers', otherKey, { currency: 'NGN', amount: 10, account_number: '0123456789', bank_code: '058' });
  expect(theirs.body.data.status).toBe('completed');
  const theirBalance = await available(otherTestId);
  for (const reference of [theirs.body.data.reference, 'snd_000000000000000000000000']) {
    const res = await post(reversePath(reference), testKey);
    expect({ reference, status: res.status, code: res.body.error.code }).toEqual({ reference, status: 404, code: 'not_found' });
  }
  const denied = await post(reversePath(theirs.body.data.reference), readKey);
  expect(denied.status).toBe(403);
  expect(denied.body.error.details).toEqual({ required_scope: 'payouts:write' });
  expect((await stack.env.db.ledgerTransaction.findFirstOrThrow({ where: { reference: theirs.body.data.reference } })).status).toBe('completed');
  expect(await available(otherTestId)).toBe(theirBalance);
});

test("every event's sample validates against its schema: the zod data schema and the catalog's JSON Schema", () => {
  // Every event but the dashboard's ping can be triggered.
  expect(TRIGGERABLE_EVENTS.map((e) => e.name)).toEqual(WEBHOOK_EVENTS.map((e) => e.name).filter((name) => name !== 'ping'));
  const ajv = addFormats(new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }));
  const types = new Map(webhookEventTypes().map((t) => [t.name, ajv.compile(t.data_schema)]));
  for (const spec of TRIGGERABLE_EVENTS) {
    const data = spec.trigger.sample({ workspaceId: 42, now: new Date() });
    expect({ event: spec.name, ok: spec.data.safeParse(data).success }).toEqual({ event: spec.name, ok: true });
    const validate = types.get(spec.name)!;
    expect({ event: spec.name, ok: validate(data), errors: validate.errors ?? null }).toEqual({ event: spec.name, ok: true, errors: null });
  }
});

test("trigger sends a sample of every event to the test side's endpoints: signed bodies the document accepts, livemode false, never to live", async () => {
  for (const spec of TRIGGERABLE_EVENTS) {
    const res = await post(TRIGGER, testKey, { event: spec.name });
    expect({ event: spec.name, status: res.status }).toEqual({ event: spec.name, status: 201 });
    contract.check('POST', TRIGGER, res.status, res.body);
    expect(res.body.data).toMatchObject({ event: spec.name, endpoints: 1 });
    const sample = res.body.data.data;
    // Stored as jsonb, the delivered data has its keys in another order.
    const hit = await waitFor(() => delivered(spec.name).find((r) => canonical(bodyOf(r).data) === canonical(sample)));
    contract.checkWebhook(hit);
    expect(bodyOf(hit)).toMatchObject({ event: spec.name, livemode: false });
  }
  const samples = new Set<string>(TRIGGERABLE_EVENTS.map((e) => e.name));
  expect(receiver.requests.filter((r) => r.path === '/live' && samples.has(String(r.headers['x-cowrie-event'])))).toEqual([]);
});

test('trigger refuses an event it does not send, listing those it does, and needs the scope of the action that makes the event', async () => {
  for (const event of ['transfer.exploded', 'ping', '', 7]) {
    const res = await post(TRIGGER, testKey, { event });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('event');
    for (const spec of TRIGGERABLE_EVENTS) expect(res.body.error.message).toContain(spec.name);
  }
  // The spec's event table lists ping, which goes to one endpoint: the refusal names the action that sends it.
  const ping = await post(TRIGGER, testKey, { event: 'ping' });
  expect(ping.body.error.message).toBe(
    `event must be one of ${TRIGGERABLE_EVENTS.map((e) => e.name).join(', ')}: a ping goes to one endpoint, sent by POST /webhook-endpoints/{id}/test (the dashboard's test action)`,
  );
  expect((await post(TRIGGER, testKey, { event: 'transfer.exploded' })).body.error.message).not.toContain('ping');
  expect((await post(TRIGGER, testKey, {})).status).toBe(400);
  for (const [event, scope] of [
    ['transfer.completed', 'payouts:write'],
    ['collection.successful', 'collections:write'],
    ['verification.verified', 'verification:write'],
  ] as const) {
    const denied = await post(TRIGGER, readKey, { event });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toEqual({ required_scope: scope });
    contract.check('POST', TRIGGER, denied.status, denied.body);
  }
  // No key's action switches an endpoint off: a key that reads may trigger it.
  expect((await post(TRIGGER, readKey, { event: 'webhook_endpoint.disabled' })).status).toBe(201);
});

test("trigger's Idempotency-Key replay checks the event's scope too: a key without it never gets another key's stored answer", async () => {
  const headers = { 'Idempotency-Key': `trigger-scope-${Date.now()}` };
  const first = await post(TRIGGER, testKey, { event: 'transfer.completed' }, headers);
  expect(first.status).toBe(201);
  // The same workspace's read key, the same key and body: refused as without the header, not replayed.
  const denied = await post(TRIGGER, readKey, { event: 'transfer.completed' }, headers);
  expect(denied.headers.get('idempotent-replayed')).toBeNull();
  expect(denied.status).toBe(403);
  expect(denied.body.error.details).toEqual({ required_scope: 'payouts:write' });
  // The key that sent it gets its answer again.
  const replay = await post(TRIGGER, testKey, { event: 'transfer.completed' }, headers);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.data).toEqual(first.body.data);
});

test("the document lists the helpers under their tag, each for test keys only, with the real action's scope", () => {
  const ops = Object.entries<Record<string, any>>(contract.doc.paths)
    .filter(([path]) => path.startsWith('/v1/test_helpers/'))
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  expect(ops.map(({ method, path, op }) => [method, path, op['x-cowrie-scope']]).sort()).toEqual(
    [
      ['get', '/v1/test_helpers/verifications/{reference}/code', 'verification:write'],
      ['post', '/v1/test_helpers/deposits/transfer_in', 'collections:write'],
      ['post', '/v1/test_helpers/transfers/{reference}/reverse', 'payouts:write'],
      ['post', '/v1/test_helpers/webhooks/trigger', null],
    ].sort(),
  );
  for (const { op } of ops) {
    expect(op.tags).toEqual(['Test helpers']);
    expect(op['x-cowrie-test-mode-only']).toBe(true);
    expect(op.responses['404']).toBeDefined();
    expect(op.responses['403']).toBeDefined();
  }
  expect(contract.doc.tags.map((t: { name: string }) => t.name)).toContain('Test helpers');
  expect(contract.doc.paths['/v1/test_helpers/webhooks/trigger'].post.description).toContain('transfer.completed: `payouts:write`');
});
