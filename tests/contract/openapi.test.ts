// Risk: the published API document drifts from the gateway: a route missing
// from it, a status or field it does not describe, a webhook event it does not
// list or whose body or headers differ, or a schema a client generator cannot
// read. Every response below, and every webhook request the workers send, is
// checked against the document the running gateway serves.
import { generateSync } from 'otplib';
import { Decimal, ERROR_STATUS } from '@cowrie/core';
import { receiveInboundTransfer } from '@cowrie/deposits';
import { createKeyFor, createUserFor, createWorkspaceWithKey, rememberSecret, startHttpReceiver, type HttpReceiver } from '@cowrie/testing';
import { startVerificationWorker, type RunningVerificationWorker } from '@cowrie/verification-dispatcher';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startPayoutWorker, type RunningPayoutWorker } from '@cowrie/payout-worker';
import { createApp } from '@cowrie/gateway';
import { CHECKED_HEADERS, OpenApiContract, expressRoutes } from './openapi-contract';
import { fund } from '../e2e/payout-stack';
import { call, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let dispatcher: RunningVerificationWorker;
let sender: RunningWebhookWorker;
let payouts: RunningPayoutWorker;
let workspaceId: number;
let receiver: HttpReceiver;
let contract: OpenApiContract;
let apiKey: string;
let readOnlyKey: string;
let session: string;
let owner: { email: string; password: string };

/** Steps the file's session up (it may have signed in more than STEP_UP_SECONDS ago on a slow run): guarded changes answer it. */
const steppedUp = () => api('POST', '/auth/step-up', { token: session, body: { password: owner.password } });

/** A call whose answer must be one the document describes, body and status. */
async function api(method: string, path: string, opts: Parameters<typeof call>[3] = {}) {
  const res = await call(gw.url, method, path, opts);
  contract.check(method, path, res.status, res.body, res.headers);
  return res;
}

beforeAll(async () => {
  // An endpoint failing twice, a second apart, is switched off (the webhook_endpoint.disabled event).
  gw = await startTestGateway({
    WEBHOOK_TIMEOUT_MS: '2000',
    PUBLIC_API_RATE_LIMIT: '80',
    WEBHOOK_DISABLE_AFTER_SECONDS: '1',
    WEBHOOK_DISABLE_MIN_FAILURES: '2',
  });
  dispatcher = await startVerificationWorker(gw.env.config, gw.env.logger);
  sender = await startWebhookWorker(gw.env.config, gw.env.logger);
  payouts = await startPayoutWorker(gw.env.config, gw.env.logger);
  receiver = await startHttpReceiver((req) => (req.path === '/gone' ? { status: 410 } : { status: 200, body: 'ok' }));
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Docs' });
  apiKey = key;
  workspaceId = workspace.id;
  readOnlyKey = (await createWorkspaceWithKey(gw.env.db, { name: 'Reader', scopes: ['read'] })).key;
  const user = await createUserFor(gw.env.db, workspace.id);
  owner = user;
  const doc = await call(gw.url, 'GET', '/v1/openapi.json');
  expect(doc.status).toBe(200);
  contract = new OpenApiContract(doc.body);
  const login = await api('POST', '/auth/login', { body: { email: user.email, password: user.password } });
  session = login.body.data.token;
  // Receives every event of this workspace from here on; the last test checks them against the document.
  const events = await api('POST', '/webhook-endpoints', { token: session, body: { url: `${receiver.url}/events`, events: ['*'] } });
  expect(events.status).toBe(201);
});
afterAll(async () => {
  await sender?.stop();
  await payouts?.stop();
  await dispatcher?.stop();
  await receiver?.close();
  await gw?.close();
});

// Compiling every schema (its references inlined) is seconds of CPU on a quiet
// machine; the limit leaves room for a loaded one (a CI run beside other work
// took over 30 s), and is no timing target.
const COMPILE_ALL_TIMEOUT_MS = 180_000;

test(
  'the document is OpenAPI 3.1, served without a key, and every schema in it compiles as JSON Schema 2020-12',
  async () => {
    expect(contract.doc.openapi).toBe('3.1.0');
    expect(contract.compileAll()).toBeGreaterThan(50);
    // Served before the API-key layer: no Authorization header was sent above.
    const res = await call(gw.url, 'GET', '/v1/openapi.json', { token: 'not-a-key' });
    expect(res.status).toBe(200);
  },
  COMPILE_ALL_TIMEOUT_MS,
);

test("the document's servers: a template of a deployment's address (a client fills in scheme and host) and the deployment that served it", async () => {
  expect(contract.doc.servers).toEqual([
    {
      url: '{scheme}://{host}',
      description: expect.any(String),
      variables: {
        scheme: { default: 'http', enum: ['http', 'https'], description: expect.any(String) },
        host: { default: '127.0.0.1:3000', description: expect.stringContaining('HOST and PORT') },
      },
    },
    { url: '/', description: expect.any(String) },
  ]);
  // Filled in with this gateway's address, the template is where the paths are served: no /v1 in the server, since the paths carry it.
  const { protocol, host } = new URL(gw.url);
  const [template] = contract.doc.servers;
  expect(template.variables.scheme.enum).toContain(protocol.replace(':', ''));
  const base = template.url.replace('{scheme}', protocol.replace(':', '')).replace('{host}', host);
  const res = await fetch(`${base}/v1/openapi.json`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { openapi: string }).openapi).toBe('3.1.0');
});

test('every route the gateway registers under /v1 (and the dashboard routes) is in the document, and nothing else', () => {
  const app = createApp(gw.deps);
  // Provider callbacks, the reference page, metrics, the queue board and the dashboard's pages are not part of the client API.
  const outside = /^(GET|POST|PUT|DELETE|PATCH) \/(rails|docs|metrics|ops|dashboard)(\/|$)/;
  const served = expressRoutes(app).filter((r) => !outside.test(r));
  const documented = Object.entries<Record<string, unknown>>(contract.doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`))
    .sort();
  expect(served.filter((r) => r.includes(' /v1/')).length).toBeGreaterThanOrEqual(13);
  expect(documented).toEqual(served);
});

test('each operation says how it is authenticated, and /v1 operations their scope', () => {
  const op = (path: string, method: string) => contract.doc.paths[path][method];
  expect(op('/v1/verifications', 'post')).toMatchObject({ security: [{ apiKey: [] }], 'x-cowrie-scope': 'verification:write' });
  expect(op('/v1/channels', 'get')['x-cowrie-scope']).toBe('read');
  expect(op('/webhook-endpoints', 'post').security).toEqual([{ session: [] }]);
  expect(op('/v1/openapi.json', 'get').security).toEqual([]);
  // The request schema is the one that validates: the verification channel enum and the code pattern.
  const startBody = op('/v1/verifications', 'post').requestBody.content['application/json'].schema;
  expect(startBody).toEqual({ $ref: '#/components/schemas/StartVerificationRequest' });
  const start = contract.resolve(startBody);
  expect(start.properties.channel.enum).toEqual(['sms', 'voice', 'email', 'whatsapp']);
  expect(start.required).toEqual(['channel', 'destination']);
  expect(op('/v1/deposits', 'post').parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
});

test('catalog, cards and errors answer as documented', async () => {
  await api('GET', '/v1/channels', { token: apiKey });
  await api('GET', '/v1/capabilities', { token: apiKey });
  await api('POST', '/v1/cards', { token: apiKey, body: {} });
  await api('GET', '/v1/channels');
  await api('GET', '/v1/channels', { token: 'cwk_not_a_real_key' });
  await api('POST', '/v1/deposits', { token: readOnlyKey, body: { channel: 'reserved_va' } });
  await api('GET', '/healthz');
  await api('GET', '/v1/openapi.json');
  await api('GET', '/readyz');
});

// Every route that takes a body reads it as JSON before its handler: a broken
// one is 400, one past BODY_LIMIT 413 (details.limit_bytes), one in another
// charset 415, whatever the route (POST /v1/cards, which reads no field, too).
test('every operation that takes a body documents 400, 413 and 415, and answers them as documented', async () => {
  const bodyOperations = Object.entries<Record<string, { responses: Record<string, unknown> }>>(contract.doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['post', 'put', 'patch'].includes(method))
      .map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, statuses: Object.keys(op.responses) })),
  );
  expect(bodyOperations.length).toBeGreaterThan(30);
  expect(bodyOperations.filter((o) => !['400', '413', '415'].every((s) => o.statuses.includes(s))).map((o) => o.at)).toEqual([]);
  expect(contract.doc.paths['/v1/transfers'].post.responses['413']).toMatchObject({ description: expect.stringContaining('limit_bytes') });

  const { key } = await createWorkspaceWithKey(gw.env.db, { name: 'Bodies' });
  const oversized = JSON.stringify({ pad: 'x'.repeat(200_000) });
  expect((await api('POST', '/v1/cards', { token: key, rawBody: '{"broken":' })).status).toBe(400);
  expect((await api('POST', '/v1/cards', { token: key, body: {}, headers: { 'Idempotency-Key': 'k'.repeat(300) } })).status).toBe(400);
  const tooLarge = await api('POST', '/v1/cards', { token: key, rawBody: oversized });
  expect(tooLarge).toMatchObject({ status: 413, body: { error: { code: 'invalid_request', details: { limit_bytes: 102_400 } } } });
  const latin1 = { 'content-type': 'application/json; charset=latin1' };
  expect((await api('POST', '/v1/transfers', { token: key, rawBody: '{}', headers: latin1 })).status).toBe(415);
  // A dashboard route reads its body before its session.
  expect((await api('POST', '/webhook-endpoints', { token: session, rawBody: oversized })).status).toBe(413);
  expect((await api('PUT', '/workspace/settings', { token: session, rawBody: '{}', headers: latin1 })).status).toBe(415);
});

test('verification start, check and read answer as documented', async () => {
  const started = await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'sms', destination: '+2348012345678' } });
  expect(started.status).toBe(201);
  const reference = started.body.data.reference;
  const wrong = await api('POST', `/v1/verifications/${reference}/check`, { token: apiKey, body: { code: '0000' } });
  expect(wrong.body.data.reason).toBe('invalid_code');
  const [message] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), '+2348012345678');
  const code = /\d{4}/.exec(message!.text)![0];
  expect((await api('POST', `/v1/verifications/${reference}/check`, { token: apiKey, body: { code } })).body.data.status).toBe('verified');
  await api('GET', `/v1/verifications/${reference}`, { token: apiKey });
  await api('GET', '/v1/verifications/00000000-0000-4000-8000-000000000000', { token: apiKey });
  await api('POST', `/v1/verifications/00000000-0000-4000-8000-000000000000/check`, { token: apiKey, body: { code: '1234' } });
  await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'sms', destination: '+2340000000000' } });
  await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'fax', destination: 'x' } });
});

test('deposits, collections and reserved accounts answer as documented', async () => {
  await api('POST', '/v1/deposits', { token: apiKey, body: { channel: 'collection_va', amount: 1500 } });
  await api('POST', '/v1/deposits', { token: apiKey, body: { channel: 'reserved_va' } });
  await api('POST', '/v1/deposits', { token: apiKey, body: { channel: 'card' } });
  const customer = { customer_name: 'Ada Obi', customer_email: 'ada@example.com' };
  const created = await api('POST', '/v1/collections', { token: apiKey, body: { ...customer, amount: 2500, reference: 'order-1' } });
  expect(created.status).toBe(201);
  expect((await api('POST', '/v1/collections', { token: apiKey, body: { ...customer, amount: 2500, reference: 'order-1' } })).status).toBe(200);
  await api('GET', `/v1/collections/${created.body.data.id}`, { token: apiKey });
  await api('GET', '/v1/collections/999999', { token: apiKey });
  const account = await api('POST', '/v1/reserved-accounts', { token: apiKey, body: { ...customer, reference: 'cust-1' } });
  expect(account.status).toBe(201);
  expect((await api('POST', '/v1/reserved-accounts', { token: apiKey, body: { ...customer, reference: 'cust-1' } })).status).toBe(200);
  await api('GET', '/v1/reserved-accounts?limit=5', { token: apiKey });
  await api('GET', `/v1/reserved-accounts/${account.body.data.id}`, { token: apiKey });
  // The same Idempotency-Key with another body.
  const headers = { 'Idempotency-Key': 'docs-conflict' };
  await api('POST', '/v1/deposits', { token: apiKey, headers, body: { channel: 'collection_va', amount: 10 } });
  // The same key and body: the stored answer, replayed (Idempotent-Replayed).
  const replayed = await api('POST', '/v1/deposits', { token: apiKey, headers, body: { channel: 'collection_va', amount: 10 } });
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  await api('POST', '/v1/deposits', { token: apiKey, headers, body: { channel: 'collection_va', amount: 11 } });
});

test('self-service API keys answer as documented', async () => {
  expect((await steppedUp()).status).toBe(200);
  const created = await api('POST', '/api-keys', { token: session, body: { name: 'Contract', scopes: ['read'] } });
  expect(created.status).toBe(201);
  await api('GET', '/api-keys', { token: session });
  const rolled = await api('POST', `/api-keys/${created.body.data.id}/roll`, {
    token: session,
    body: { grace_seconds: 0 },
    headers: { 'Idempotency-Key': 'contract-roll' },
  });
  expect(rolled.status).toBe(201);
  expect((await api('DELETE', `/api-keys/${rolled.body.data.id}`, { token: session })).status).toBe(200);
  expect((await api('DELETE', '/api-keys/999999', { token: session })).status).toBe(404);
  expect((await api('POST', '/api-keys', { token: session, body: { name: '', scopes: [] } })).status).toBe(400);
  expect((await api('GET', '/api-keys', { token: apiKey })).status).toBe(401);
  expect((await api('GET', '/transactions/export?type=credit&search=a', { token: session })).status).toBe(200);
  const started = await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'email', destination: 'contract@example.com' } });
  expect((await api('GET', '/verifications?limit=1&channel=email', { token: session })).body.data).toHaveLength(1);
  expect((await api('GET', `/verifications/${started.body.data.reference}`, { token: session })).status).toBe(200);
  expect((await api('GET', '/verifications/00000000-0000-4000-8000-000000000000', { token: session })).status).toBe(404);
  // The fraud guard (monitor by default) counted the sms started above.
  expect((await api('GET', '/verification-guard', { token: session })).body.data.prefixes).toContainEqual(expect.objectContaining({ prefix: '+234801 2' }));
  expect((await api('POST', '/verification-guard/clear', { token: session, body: { prefix: '+234801 2' } })).status).toBe(200);
  await api('POST', '/v1/collections', { token: apiKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount: 500 } });
  expect((await api('GET', '/collections?status=pending&limit=5', { token: session })).body.data.length).toBeGreaterThan(0);
  await api('GET', '/reserved-accounts', { token: session });
  await api('GET', '/deposit-payments?limit=5', { token: session });
  await fund(gw.env.db, workspaceId, 'NGN', '1');
  const latest = (await api('GET', '/transactions?limit=1', { token: session })).body.data[0];
  expect((await api('GET', `/transactions/${latest.reference}`, { token: session })).status).toBe(200);
  expect((await api('GET', '/transactions/crd_none', { token: session })).status).toBe(404);
  // The team: an invitation, its one-time password changed, a removal.
  await api('GET', '/users', { token: session });
  const invited = await api('POST', '/users', { token: session, body: { email: 'contract.member@example.com', role: 'member' } });
  expect(invited.status).toBe(201);
  rememberSecret(invited.body.data.one_time_password);
  const first = await api('POST', '/auth/login', { body: { email: 'contract.member@example.com', password: invited.body.data.one_time_password } });
  expect((await api('GET', '/users', { token: first.body.data.token })).status).toBe(403);
  const changed = await api('POST', '/auth/password', {
    token: first.body.data.token,
    body: { current_password: invited.body.data.one_time_password, new_password: 'contract member passphrase' },
  });
  expect(changed.status).toBe(200);
  rememberSecret('contract member passphrase');
  expect((await api('DELETE', `/users/${invited.body.data.user.id}`, { token: changed.body.data.token })).status).toBe(403);
  expect((await api('GET', `/users/${invited.body.data.user.id}/api-keys`, { token: changed.body.data.token })).status).toBe(403);
  expect((await api('GET', `/users/${invited.body.data.user.id}/api-keys`, { token: session })).status).toBe(200);
  expect((await api('GET', '/users/999999/api-keys', { token: session })).status).toBe(404);
  // A role change, and a forgotten password's link.
  await steppedUp();
  expect((await api('PUT', `/users/${invited.body.data.user.id}/role`, { token: session, body: { role: 'admin' } })).status).toBe(200);
  expect((await api('PUT', `/users/${invited.body.data.user.id}/role`, { token: changed.body.data.token, body: { role: 'member' } })).status).toBe(400);
  expect((await api('PUT', '/users/999999/role', { token: session, body: { role: 'admin' } })).status).toBe(404);
  expect((await api('POST', '/auth/password-reset', { body: { email: 'contract.member@example.com' } })).status).toBe(202);
  await gw.deps.background.idle();
  const [resetEmail] = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), 'contract.member@example.com');
  const resetToken = /token=([A-Za-z0-9_-]+)/.exec(resetEmail!.text)![1]!;
  rememberSecret(resetToken);
  rememberSecret('contract member reset passphrase');
  const reset = (password: string) => api('POST', '/auth/password-reset/confirm', { body: { token: resetToken, password } });
  expect((await reset('short')).status).toBe(400);
  expect((await reset('contract member reset passphrase')).status).toBe(200);
  expect((await reset('contract member reset passphrase')).status).toBe(400);
  expect((await api('DELETE', `/users/${invited.body.data.user.id}?revoke_api_keys=true`, { token: session })).status).toBe(200);
  expect((await api('DELETE', '/users/999999', { token: session })).status).toBe(404);
});

test('the audit trail answers as documented', async () => {
  const page = await api('GET', '/audit-events?limit=2', { token: session });
  expect([page.status, page.body.error]).toEqual([200, undefined]);
  expect(page.body.data).toHaveLength(2);
  await api('GET', `/audit-events?action=user.signed_in&cursor=${encodeURIComponent(page.body.meta.next_cursor)}`, { token: session });
  expect((await api('GET', '/audit-events?action=nothing.at_all', { token: session })).status).toBe(400);
  expect((await api('GET', '/audit-events', { token: apiKey })).status).toBe(401);
  expect((await api('GET', '/audit-events/export?action=api_key.created', { token: session })).status).toBe(200);
});

test('two-step sign-in, the step-up and the reset of a second factor answer as documented', async () => {
  const member = await createUserFor(gw.env.db, workspaceId, 'contract.mfa@example.com');
  await gw.env.db.dashboardUser.update({ where: { id: member.id }, data: { role: 'member' } });
  const token = (await api('POST', '/auth/login', { body: { email: member.email, password: member.password } })).body.data.token;
  expect((await api('GET', '/auth/mfa', { token })).body.data.totp_enabled).toBe(false);
  const { secret } = (await api('POST', '/auth/mfa/totp', { token })).body.data;
  rememberSecret(secret);
  const now = Math.floor(Date.now() / 1000);
  expect((await api('POST', '/auth/mfa/totp/confirm', { token, body: { code: '' } })).status).toBe(400);
  const { recovery_codes } = (await api('POST', '/auth/mfa/totp/confirm', { token, body: { code: generateSync({ secret, epoch: now }) } })).body.data;
  recovery_codes.forEach(rememberSecret);
  const challenge = await api('POST', '/auth/login', { body: { email: member.email, password: member.password } });
  expect(challenge.body.data.mfa_required).toBe(true);
  expect((await api('POST', '/auth/login/mfa', { body: { challenge: challenge.body.data.challenge, code: '000000x' } })).status).toBe(401);
  const signedIn = await api('POST', '/auth/login/mfa', {
    body: { challenge: challenge.body.data.challenge, code: generateSync({ secret, epoch: now + 30 }) },
  });
  expect(signedIn.status).toBe(200);
  expect((await api('POST', '/auth/step-up', { token, body: { code: recovery_codes[0] } })).status).toBe(200);
  expect((await api('POST', '/auth/step-up', { token, body: { password: member.password } })).status).toBe(400);
  expect((await api('POST', '/auth/mfa/totp/disable', { token, body: { code: recovery_codes[1] } })).status).toBe(200);
  // Back on, then reset by the owner.
  const again = (await api('POST', '/auth/mfa/totp', { token: signedIn.body.data.token })).body.data.secret;
  rememberSecret(again);
  const codes = (
    await api('POST', '/auth/mfa/totp/confirm', { token: signedIn.body.data.token, body: { code: generateSync({ secret: again, epoch: now + 30 }) } })
  ).body.data.recovery_codes;
  codes.forEach(rememberSecret);
  await steppedUp();
  expect((await api('DELETE', `/users/${member.id}/mfa`, { token: signedIn.body.data.token })).status).toBe(403);
  expect((await api('DELETE', `/users/${member.id}/mfa`, { token: session })).status).toBe(200);
  expect((await api('DELETE', '/users/999999/mfa', { token: session })).status).toBe(404);
});

test("the session's balances and ledger answer as documented", async () => {
  await api('GET', '/balances', { token: session });
  await api('GET', '/transactions?limit=2', { token: session });
  await api('GET', '/transactions', { token: session, headers: { 'Cowrie-Mode': 'test' } });
  expect((await api('GET', '/transactions?limit=0', { token: session })).status).toBe(400);
  expect((await api('GET', '/balances', { token: apiKey })).status).toBe(401);
});

test("the session's payouts, bank lookup and beneficiaries answer as documented", async () => {
  await steppedUp();
  await fund(gw.env.db, workspaceId, 'NGN', '1000');
  const bankCode = (await api('GET', '/banks', { token: session })).body.data[0].bankCode;
  expect((await api('GET', '/payout-rails', { token: session })).status).toBe(200);
  const resolved = await api('POST', '/banks/resolve', { token: session, body: { account_number: '0123456789', bank_code: bankCode } });
  const transfer = { currency: 'NGN', amount: '15', account_number: '0123456789', bank_code: bankCode, account_name: resolved.body.data.accountName };
  expect((await api('POST', '/transfers', { token: session, body: transfer, headers: { 'Idempotency-Key': 'contract-session-1' } })).status).toBe(201);
  expect((await api('POST', '/transfers', { token: session, body: transfer })).status).toBe(400);
  const beneficiary = await api('POST', '/beneficiaries', { token: session, body: { account_number: '0987654320', bank_code: bankCode, currency: 'NGN' } });
  await api('GET', '/beneficiaries', { token: session });
  const withdrawal = { currency: 'NGN', amount: '5', beneficiary_id: beneficiary.body.data.id };
  expect((await api('POST', '/withdrawals', { token: session, body: withdrawal, headers: { 'Idempotency-Key': 'contract-session-2' } })).status).toBe(201);
  expect((await api('DELETE', `/beneficiaries/${beneficiary.body.data.id}`, { token: session })).status).toBe(200);
  expect((await api('DELETE', `/beneficiaries/${beneficiary.body.data.id}`, { token: session })).status).toBe(404);
});

test('payout approvals: the settings, payouts that become requests, their approval and rejection answer as documented', async () => {
  await steppedUp();
  await fund(gw.env.db, workspaceId, 'NGN', '100');
  expect((await api('GET', '/workspace/settings', { token: session })).status).toBe(200);
  expect((await api('PUT', '/workspace/settings', { token: session, body: { payout_approval_thresholds: { NGN: '20' } } })).status).toBe(200);
  expect((await api('PUT', '/workspace/settings', { token: session, body: { payout_approval_thresholds: { NGN: 'x' } } })).status).toBe(400);
  const transfer = { currency: 'NGN', amount: '25', account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' };
  const asked = await api('POST', '/transfers', { token: session, body: transfer, headers: { 'Idempotency-Key': 'contract-request-1' } });
  expect(asked.status).toBe(202);
  const beneficiary = await api('POST', '/beneficiaries', { token: session, body: { account_number: '0987654321', bank_code: '058', currency: 'NGN' } });
  const withdrawal = { currency: 'NGN', amount: '30', beneficiary_id: beneficiary.body.data.id };
  const askedToo = await api('POST', '/withdrawals', { token: session, body: withdrawal, headers: { 'Idempotency-Key': 'contract-request-2' } });
  expect(askedToo.status).toBe(202);
  expect((await api('GET', '/payout-requests?status=pending', { token: session })).body.data).toHaveLength(2);
  expect((await api('GET', `/payout-requests/${asked.body.data.id}`, { token: session })).status).toBe(200);
  expect((await api('GET', '/payout-requests/999999', { token: session })).status).toBe(404);
  expect((await api('POST', `/payout-requests/${asked.body.data.id}/approve`, { token: session })).status).toBe(403);

  const admin = await createUserFor(gw.env.db, workspaceId, 'contract-admin@example.com');
  await gw.env.db.dashboardUser.update({ where: { id: admin.id }, data: { role: 'admin' } });
  const adminSession = (await api('POST', '/auth/login', { body: { email: admin.email, password: admin.password } })).body.data.token;
  expect((await api('POST', `/payout-requests/${asked.body.data.id}/approve`, { token: adminSession })).status).toBe(200);
  expect((await api('POST', `/payout-requests/${askedToo.body.data.id}/reject`, { token: adminSession, body: { reason: 'no' } })).status).toBe(200);
  expect((await api('POST', `/payout-requests/${askedToo.body.data.id}/approve`, { token: adminSession })).status).toBe(400);
  expect((await api('PUT', '/workspace/settings', { token: session, body: { payout_approval_thresholds: {} } })).status).toBe(200);
});

test('webhook endpoint management and the delivery log answer as documented', async () => {
  await steppedUp();
  const created = await api('POST', '/webhook-endpoints', { token: session, body: { url: `${receiver.url}/hook` } });
  const id = created.body.data.id;
  await api('GET', '/webhook-endpoints', { token: session });
  await api('GET', '/webhook-event-types', { token: session });
  expect((await api('POST', `/webhook-endpoints/${id}/roll-secret`, { token: session, body: { grace_seconds: 60 } })).status).toBe(201);
  await api('PUT', `/webhook-endpoints/${id}`, { token: session, body: { events: ['verification.verified'] } });
  const ping = await api('POST', `/webhook-endpoints/${id}/test`, { token: session });
  expect(ping.body.data.ok).toBe(true);
  await api('GET', '/webhook-deliveries?limit=5', { token: session });
  await api('GET', `/webhook-deliveries?limit=1&ok=true&event=ping&from=2026-01-01T00:00:00Z&cursor=${ping.body.data.delivery_id + 1}`, { token: session });
  expect((await api('GET', `/webhook-deliveries/${ping.body.data.delivery_id}`, { token: session })).status).toBe(200);
  expect((await api('GET', '/webhook-deliveries/999999', { token: session })).status).toBe(404);
  const resent = await api('POST', `/webhook-deliveries/${ping.body.data.delivery_id}/resend`, {
    token: session,
    headers: { 'Idempotency-Key': 'contract-resend' },
  });
  expect(resent.status).toBe(201);
  const recovered = await api('POST', `/webhook-endpoints/${id}/recover`, { token: session, body: { since: '2026-01-01T00:00:00Z' } });
  expect(recovered.status).toBe(202);
  // Two failed pings over a second: the endpoint is switched off, and the '*' endpoint hears of it.
  const gone = (await api('POST', '/webhook-endpoints', { token: session, body: { url: `${receiver.url}/gone`, events: ['ping'] } })).body.data.id;
  expect((await api('POST', `/webhook-endpoints/${gone}/test`, { token: session })).body.data.ok).toBe(false);
  expect((await api('POST', `/webhook-endpoints/${gone}/test`, { token: session })).body.data.ok).toBe(false);
  const listed = await api('GET', '/webhook-endpoints', { token: session });
  expect(listed.body.data.find((e: { id: number }) => e.id === gone)).toMatchObject({ active: false, disabled_reason: expect.any(String) });
  await api('DELETE', `/webhook-endpoints/${id}`, { token: session });
  await api('DELETE', `/webhook-endpoints/${id}`, { token: session });
  await api('GET', '/webhook-endpoints', { token: apiKey });
  // Last: signing out ends the session this file used.
  expect((await api('POST', '/auth/logout', { token: session })).status).toBe(200);
  expect((await api('GET', '/webhook-endpoints', { token: session })).status).toBe(401);
});

test('payouts, bank lookup, beneficiaries and the ledger views answer as documented', async () => {
  await fund(gw.env.db, workspaceId, 'NGN', '100000');
  const banks = await api('GET', '/v1/banks?country=NG', { token: apiKey });
  const bankCode = banks.body.data[0].bankCode;
  const resolved = await api('POST', '/v1/banks/resolve', { token: apiKey, body: { account_number: '0123456789', bank_code: bankCode } });
  const sent = await api('POST', '/v1/transfers', {
    token: apiKey,
    body: { currency: 'ngn', amount: 1500, account_number: '0123456789', bank_code: bankCode, account_name: resolved.body.data.accountName },
  });
  expect(sent.body.data.status).toBe('completed');
  expect(
    (await api('POST', '/v1/transfers', { token: apiKey, body: { currency: 'NGN', amount: 10, account_number: '0000000001', bank_code: bankCode } })).body.data
      .status,
  ).toBe('failed');
  expect(
    (await api('POST', '/v1/transfers', { token: apiKey, body: { currency: 'NGN', amount: 10, account_number: '0000000002', bank_code: bankCode } })).status,
  ).toBe(502);
  // Completed, then returned by the sandbox bank about 2 s later: transfer.reversed (waited for with the other events below).
  expect(
    (await api('POST', '/v1/transfers', { token: apiKey, body: { currency: 'NGN', amount: 10, account_number: '0000000003', bank_code: bankCode } })).body.data
      .status,
  ).toBe('completed');
  await api('POST', '/v1/transfers', { token: apiKey, body: { currency: 'NGN', amount: 10_000_000, account_number: '0123456789', bank_code: bankCode } });
  await api('POST', '/v1/transfers', { token: apiKey, body: { currency: 'USD', amount: 10, account_number: '0123456789', bank_code: bankCode } });
  const beneficiary = await api('POST', '/v1/beneficiaries', { token: apiKey, body: { account_number: '0987654321', bank_code: bankCode, currency: 'NGN' } });
  const beneficiaries = await api('GET', '/v1/beneficiaries?limit=1', { token: apiKey });
  expect(beneficiaries.body.meta.next_cursor).toEqual(expect.any(String));
  await api('GET', `/v1/beneficiaries?cursor=${encodeURIComponent(beneficiaries.body.meta.next_cursor)}`, { token: apiKey });
  await api('POST', '/v1/withdrawals', { token: apiKey, body: { currency: 'NGN', amount: 100, beneficiary_id: beneficiary.body.data.id } });
  await api('POST', '/v1/withdrawals', { token: apiKey, body: { currency: 'NGN', amount: 100, beneficiary_id: 999999 } });
  await api('GET', '/v1/balances', { token: apiKey });
  const page = await api('GET', '/v1/transactions?limit=2&type=debit&from=2026-01-01T00:00:00Z', { token: apiKey });
  await api('GET', `/v1/transactions?limit=2&cursor=${encodeURIComponent(page.body.meta.next_cursor)}`, { token: apiKey });
  const recipients = await api('GET', '/v1/recipients?limit=1', { token: apiKey });
  await api('GET', `/v1/recipients?limit=100&cursor=${encodeURIComponent(recipients.body.meta.next_cursor)}`, { token: apiKey });
  expect((await api('GET', '/v1/recipients?cursor=nope', { token: apiKey })).status).toBe(400);
});

test('the test helpers answer as documented, to a test key; a live key gets 404', async () => {
  const testKey = await createKeyFor(gw.env.db, workspaceId, 'test');
  const account = await api('POST', '/v1/reserved-accounts', { token: testKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com' } });
  const number = account.body.data.account.account_number;
  expect((await api('POST', '/v1/test_helpers/deposits/transfer_in', { token: testKey, body: { account_number: number, amount: 500 } })).status).toBe(201);
  expect((await api('POST', '/v1/test_helpers/deposits/transfer_in', { token: apiKey, body: { account_number: number, amount: 500 } })).status).toBe(404);
  const started = await api('POST', '/v1/verifications', { token: testKey, body: { channel: 'sms', destination: '+2348012345679' } });
  expect((await api('GET', `/v1/test_helpers/verifications/${started.body.data.reference}/code`, { token: testKey })).status).toBe(200);
  const sent = await api('POST', '/v1/transfers', { token: testKey, body: { currency: 'NGN', amount: 100, account_number: '0123456789', bank_code: '058' } });
  expect((await api('POST', `/v1/test_helpers/transfers/${sent.body.data.reference}/reverse`, { token: testKey })).body.data.status).toBe('reversed');
  expect((await api('POST', '/v1/test_helpers/webhooks/trigger', { token: testKey, body: { event: 'transfer.completed' } })).status).toBe(201);
  expect((await api('POST', '/v1/test_helpers/webhooks/trigger', { token: testKey, body: { event: 'nope' } })).status).toBe(400);
});

test('the request budget 429 is documented too', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db, { name: 'Busy' });
  let last;
  // A fixed window can reset mid-loop: twice the limit always reaches a 429.
  for (let i = 0; i <= 2 * gw.env.config.PUBLIC_API_RATE_LIMIT && last?.status !== 429; i++) last = await call(gw.url, 'GET', '/v1/channels', { token: key });
  expect(last!.status).toBe(429);
  contract.check('GET', '/v1/channels', last!.status, last!.body, last!.headers);
});

test("every header of the API's own was seen above, each on an answer that documents it", () => {
  expect([...contract.seenHeaders].sort()).toEqual([...CHECKED_HEADERS].sort());
});

test('every documented success response was seen from the running gateway above', () => {
  const missing = contract.documentedSuccesses().filter((s) => !contract.seen.has(s));
  expect(missing).toEqual([]);
});

test('schemas are named components that operations refer to, and error codes are the closed set of ERROR_STATUS', () => {
  const schemaOf = (path: string, method: string, status: string) => contract.doc.paths[path][method].responses[status].content['application/json'].schema;
  const transfer = contract.doc.paths['/v1/transfers'].post;
  expect(transfer.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTransferRequest' });
  expect(schemaOf('/v1/transfers', 'post', '201').properties).toEqual({
    data: { $ref: '#/components/schemas/Transaction' },
    meta: { $ref: '#/components/schemas/ResponseMeta' },
  });
  expect(schemaOf('/v1/transactions', 'get', '200').properties).toEqual({
    data: { type: 'array', items: { $ref: '#/components/schemas/Transaction' } },
    meta: { $ref: '#/components/schemas/PageMeta' },
  });
  expect(schemaOf('/v1/transfers', 'post', '400')).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
  const schemas = contract.doc.components.schemas;
  // One branch per code whose details the document describes, one for the rest: every code is a branch's, once, and an ErrorCode.
  const branches = schemas.ErrorResponse.properties.error.anyOf.map((b: any) => b.properties.code.allOf);
  for (const branch of branches) expect(branch[0]).toEqual({ $ref: '#/components/schemas/ErrorCode' });
  expect(branches.flatMap((b: any) => b[1].enum ?? [b[1].const]).sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  expect(schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_STATUS));
  expect(contract.resolve(schemas.ErrorResponse.properties.error.anyOf[3].properties.details)).toMatchObject({
    allOf: [{ type: 'object' }, { properties: { retry_after_seconds: { type: 'integer' }, limit: { type: 'integer' } } }],
  });
  // Every named schema is used somewhere, and every reference resolves.
  const refs = new Set(
    JSON.stringify(contract.doc)
      .match(/#\/components\/schemas\/[A-Za-z]+/g)!
      .map((r) => r.split('/').pop()),
  );
  expect([...refs].sort()).toEqual(Object.keys(schemas).sort());
});

test('every event the workers sent above is a documented webhook, with its body and headers, and every documented one was sent', async () => {
  // The events the calls above did not cause: a paid and an expired collection, a failed and an expired verification.
  const paid = await api('POST', '/v1/collections', { token: apiKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount: 700 } });
  const inbound = await receiveInboundTransfer(
    { db: gw.env.db },
    {
      provider: gw.env.config.COLLECTION_RAIL,
      providerReference: 'docs-transfer-1',
      accountNumber: paid.body.data.account.account_number,
      amount: new Decimal('700'),
      currency: 'NGN',
      raw: {},
    },
  );
  expect(inbound).toMatchObject({ matched: true, status: 'credited' });
  const unpaid = await api('POST', '/v1/collections', { token: apiKey, body: { customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount: 800 } });
  await gw.env.db.collection.update({ where: { id: unpaid.body.data.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await api('GET', `/v1/collections/${unpaid.body.data.id}`, { token: apiKey })).body.data.status).toBe('expired');
  // A wrong code on the last attempt allowed; a check after the code expired. A code is digits, so 'wrong' never matches.
  const lastTry = await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'email', destination: 'last-try@example.com' } });
  const { maxAttempts } = await gw.env.db.verification.findUniqueOrThrow({ where: { reference: lastTry.body.data.reference } });
  await gw.env.db.verification.update({ where: { reference: lastTry.body.data.reference }, data: { attempts: maxAttempts - 1 } });
  const last = await api('POST', `/v1/verifications/${lastTry.body.data.reference}/check`, { token: apiKey, body: { code: 'wrong' } });
  expect(last.body.data).toMatchObject({ status: 'failed', reason: 'invalid_code' });
  const late = await api('POST', '/v1/verifications', { token: apiKey, body: { channel: 'email', destination: 'late@example.com' } });
  await gw.env.db.verification.update({ where: { reference: late.body.data.reference }, data: { expiresAt: new Date(Date.now() - 1000) } });
  expect((await api('POST', `/v1/verifications/${late.body.data.reference}/check`, { token: apiKey, body: { code: 'wrong' } })).body.data.reason).toBe(
    'expired',
  );

  const documented = Object.keys(contract.doc.webhooks).sort();
  const received = () => new Set(receiver.requests.map((r) => String(r.headers['x-cowrie-event'])));
  for (let waited = 0; documented.some((e) => !received().has(e)) && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  for (const request of receiver.requests) contract.checkWebhook(request);
  expect([...contract.seenWebhooks].sort()).toEqual(documented);
});
