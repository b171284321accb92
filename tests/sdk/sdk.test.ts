// Risk: the SDK pays twice or lies about types: a retry that sends a new
// Idempotency-Key (a second execution), a README example that no longer runs,
// types generated from a stale document.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { inspect } from 'node:util';
import { closeGatewayDeps, createApp, createGatewayDeps, type GatewayDeps } from '@cowrie/gateway';
import { startPayoutWorker, type RunningPayoutWorker } from '@cowrie/payout-worker';
import { createKeyFor, createWorkspaceWithKey, listenGateway, type RunningGateway, type TestEnv } from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { webhookSignatureHeader } from '@cowrie/webhooks';
import { CowrieApiError, CowrieClient, standardWebhooksSecret, standardWebhooksSignatureHeader, verifyWebhookSignature } from '@cowrie/sdk';
import { quickstart } from '@cowrie/sdk/examples/quickstart';

const SDK_DIR = path.join(__dirname, '../../packages/sdk');

let env: TestEnv;
let gateway: RunningGateway<GatewayDeps>;
let worker: RunningPayoutWorker;
let apiKey: string;
let workspaceId: number;

beforeAll(async () => {
  env = await createTestEnv({ PUBLIC_API_RATE_LIMIT: '1000' });
  gateway = await listenGateway<GatewayDeps>(env, { createDeps: createGatewayDeps, createApp: (deps) => createApp(deps), closeDeps: closeGatewayDeps });
  worker = await startPayoutWorker(env.config, env.logger);
  const { workspace, key } = await createWorkspaceWithKey(env.db, { name: 'SDK' });
  apiKey = key;
  workspaceId = workspace.id;
  await fundWallet(env.db, workspaceId, '100000');
});
afterAll(async () => {
  await worker?.stop();
  await gateway?.close();
  await env?.cleanup();
});

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  userAgent: string | undefined;
  body: string;
}

/** A proxy to the gateway that loses the answers of the first `drop` requests (after the gateway handled them). */
async function lossyProxy(drop: number) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => void relay().catch(() => req.socket.destroy()));
    async function relay() {
      seen.push({
        method: req.method!,
        url: req.url!,
        key: req.headers['idempotency-key'] as string | undefined,
        userAgent: req.headers['user-agent'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<
        string,
        string
      >;
      const upstream = await fetch(`${gateway.url}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = await upstream.text();
      if (seen.length <= drop) {
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json', 'idempotent-replayed': upstream.headers.get('idempotent-replayed') ?? 'false' });
      res.end(body);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

test('the README example runs against a running gateway', async () => {
  const result = await quickstart(gateway.url, apiKey);
  expect(result.live).toEqual(expect.arrayContaining(['collection_va', 'reserved_va']));
  expect(result.deposit).toMatchObject({ channel: 'collection_va', status: 'pending' });
  expect(result.transfer).toMatchObject({ status: 'completed', category: 'send', amount: '1500.000000' });
  // The README shows this very example.
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const example = readFileSync(path.join(SDK_DIR, 'examples/quickstart.ts'), 'utf8');
  const body = example.slice(example.indexOf('export async function quickstart'), example.indexOf('\n}\n') + 2);
  expect(readme).toContain(body);
});

test('a POST whose answer is lost is retried with the same Idempotency-Key and runs once', async () => {
  const proxy = await lossyProxy(2);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey, retryDelayMs: 10 });
    const collection = await client.collections.create({ customer_name: 'Ada Obi', customer_email: 'ada@example.com', amount: 2500 });
    expect(proxy.seen).toHaveLength(3);
    expect(new Set(proxy.seen.map((s) => s.key)).size).toBe(1);
    expect(proxy.seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    // One collection, although the gateway saw the request three times.
    expect(await env.db.collection.count({ where: { workspaceId, customerEmail: 'ada@example.com' } })).toBe(1);
    expect(await client.collections.get(collection.id)).toMatchObject({ id: collection.id, amount: '2500.000000' });
  } finally {
    await proxy.close();
  }
});

test('a transfer retried after a lost answer pays once: the retry carries the same Idempotency-Key and is answered with the first payout', async () => {
  const proxy = await lossyProxy(1);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey, retryDelayMs: 10 });
    const transfer = await client.transfers.create({ currency: 'NGN', amount: 700, account_number: '0111111111', bank_code: '058' });
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[0]!.key).toBe(proxy.seen[1]!.key);
    // The body went as the caller gave it: no ledger-level key was added.
    expect(proxy.seen.map((s) => JSON.parse(s.body).idempotency_key)).toEqual([undefined, undefined]);
    const rows = await env.db.ledgerTransaction.findMany({ where: { workspaceId, counterpartyAccount: '0111111111' } });
    expect(rows.map((r) => [r.id, r.requestKey])).toEqual([[transfer.id, proxy.seen[0]!.key]]);
  } finally {
    await proxy.close();
  }
});

// The header key answers retries (a definite failure frees it for a new
// attempt); the body's idempotency_key is the ledger's, and answers its payout
// forever. The SDK sends the second only when the caller gives it.
test('a payout retried with the same key after a definite failure runs a new attempt, a corrected body then completes under it, and a success is replayed (transfers and withdrawals)', async () => {
  const { workspace, key } = await createWorkspaceWithKey(env.db, { name: 'SDK payout retries' });
  await fundWallet(env.db, workspace.id, '1000');
  const proxy = await lossyProxy(0);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey: key });
    const idempotencyKey = 'order-1042';
    // The sandbox rail fails a payout to 0000000001.
    const failing = { currency: 'NGN', amount: 40, account_number: '0000000001', bank_code: '058' };
    const first = await client.transfers.create(failing, { idempotencyKey });
    const second = await client.transfers.create(failing, { idempotencyKey });
    expect([first.status, second.status]).toEqual(['failed', 'failed']);
    expect(second.id).not.toBe(first.id);
    expect(second.reference).not.toBe(first.reference);
    const corrected = await client.transfers.create({ ...failing, account_number: '0123456789' }, { idempotencyKey });
    expect(corrected.status).toBe('completed');
    const replayed = await client.transfers.create({ ...failing, account_number: '0123456789' }, { idempotencyKey });
    expect(replayed.id).toBe(corrected.id);
    // Each call sent the caller's key in the header, and the body as given: no ledger key.
    expect(proxy.seen.map((s) => s.key)).toEqual(Array(4).fill(idempotencyKey));
    expect(proxy.seen.map((s) => JSON.parse(s.body).idempotency_key)).toEqual(Array(4).fill(undefined));
    const rows = await env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id, requestKey: idempotencyKey }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'completed']);

    const failingBeneficiary = await client.beneficiaries.create({ account_number: '0000000001', bank_code: '058', currency: 'NGN' });
    const goodBeneficiary = await client.beneficiaries.create({ account_number: '0123456789', bank_code: '058', currency: 'NGN' });
    const withdrawalKey = 'withdrawal-77';
    const w1 = await client.withdrawals.create({ currency: 'NGN', amount: 15, beneficiary_id: failingBeneficiary.id }, { idempotencyKey: withdrawalKey });
    const w2 = await client.withdrawals.create({ currency: 'NGN', amount: 15, beneficiary_id: failingBeneficiary.id }, { idempotencyKey: withdrawalKey });
    expect([w1.status, w2.status]).toEqual(['failed', 'failed']);
    expect(w2.id).not.toBe(w1.id);
    const w3 = await client.withdrawals.create({ currency: 'NGN', amount: 15, beneficiary_id: goodBeneficiary.id }, { idempotencyKey: withdrawalKey });
    expect(w3.status).toBe('completed');
    const w4 = await client.withdrawals.create({ currency: 'NGN', amount: 15, beneficiary_id: goodBeneficiary.id }, { idempotencyKey: withdrawalKey });
    expect(w4.id).toBe(w3.id);
    // Only the completed payouts took money: 40 and 15 of 1000.
    expect(await client.balances.list()).toContainEqual(expect.objectContaining({ currency: 'NGN', available: '945.000000' }));
  } finally {
    await proxy.close();
  }
});

test("a body idempotency_key is the caller's: sent as given, it answers its payout whatever the header; any key the API takes is sent", async () => {
  const { workspace, key } = await createWorkspaceWithKey(env.db, { name: 'SDK ledger keys' });
  await fundWallet(env.db, workspace.id, '1000');
  const client = new CowrieClient({ baseUrl: gateway.url, apiKey: key });
  const body = { currency: 'NGN', amount: 25, account_number: '0123456789', bank_code: '058', idempotency_key: 'commande-été-№1' };
  const paid = await client.transfers.create(body);
  expect(paid).toMatchObject({ status: 'completed', idempotencyKey: 'commande-été-№1' });
  // Another call (another header key) with the same ledger key answers the same payout.
  expect((await client.transfers.create(body)).id).toBe(paid.id);
  // The longest ledger key the API takes (255 characters) is no header value of the SDK's.
  const long = await client.transfers.create({ ...body, idempotency_key: 'k'.repeat(255) });
  expect(long).toMatchObject({ status: 'completed', idempotencyKey: 'k'.repeat(255) });
  expect(await env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, type: 'debit' } })).toBe(2);
});

test('two logical calls use two keys; an explicit key is sent as given', async () => {
  const proxy = await lossyProxy(0);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey });
    await client.deposits.create({ channel: 'reserved_va' });
    await client.deposits.create({ channel: 'reserved_va' }, { idempotencyKey: 'my-key-1' });
    await client.channels.list();
    expect(proxy.seen.map((s) => s.key)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), 'my-key-1', undefined]);
    // Every request names the SDK and its version.
    const { version } = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8'));
    expect(proxy.seen.map((s) => s.userAgent)).toEqual(Array(3).fill(`cowrie-node/${version}`));
  } finally {
    await proxy.close();
  }
});

test('errors are thrown with the API code, status and request id; client errors are not retried', async () => {
  const proxy = await lossyProxy(0);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey, retryDelayMs: 10 });
    const err = await client.deposits.create({ channel: 'card' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CowrieApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', attempts: 1 });
    expect((err as CowrieApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(proxy.seen).toHaveLength(1);
    const unreachable = new CowrieClient({ baseUrl: 'http://127.0.0.1:1', apiKey, maxRetries: 1, retryDelayMs: 5 });
    await expect(unreachable.channels.list()).rejects.toMatchObject({ status: 0, code: 'network_error', attempts: 2 });
  } finally {
    await proxy.close();
  }
});

/** A client whose fetch is the real one, counting the requests it is asked to send. */
function countingClient(options: Omit<ConstructorParameters<typeof CowrieClient>[0], 'fetch'>) {
  const sent = { count: 0 };
  const client = new CowrieClient({ retryDelayMs: 5, ...options, fetch: (input, init) => (sent.count++, fetch(input, init)) });
  return { client, sent };
}

/** What a call threw, with its message and class; 'sent' if it resolved. */
const thrownBy = (call: () => Promise<unknown>) =>
  call().then(
    () => 'sent',
    (err: unknown) => err,
  );

test('an API key no header can carry is refused before anything is sent, once, without the key in the message', async () => {
  const split = (at: number, inner: string) => apiKey.slice(0, at) + inner + apiKey.slice(at);
  for (const badKey of [split(20, '\n'), `${apiKey}\r\nX-Injected: 1`, `${apiKey}№`, split(12, '\u0000')]) {
    const { client, sent } = countingClient({ baseUrl: gateway.url, apiKey: badKey });
    const err = await thrownBy(() => client.channels.list());
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^apiKey holds a character an HTTP header cannot carry/);
    for (const part of [apiKey.slice(8, 20), apiKey.slice(20)]) expect((err as Error).message).not.toContain(part);
    expect(sent.count).toBe(0);
  }
  // Spaces and line breaks around the key (a key read from a file) are no part of it, as fetch would have it.
  const { client, sent } = countingClient({ baseUrl: gateway.url, apiKey: ` ${apiKey}\n` });
  expect(await client.channels.list()).toEqual(expect.any(Array));
  expect(sent.count).toBe(1);
});

test('an Idempotency-Key no header can carry, or an empty one (which the API would ignore), is refused before anything is sent', async () => {
  const { client, sent } = countingClient({ baseUrl: gateway.url, apiKey });
  for (const idempotencyKey of ['order\n1042', 'commande-№1042', 'order\u00001042']) {
    const err = await thrownBy(() => client.deposits.create({ channel: 'reserved_va' }, { idempotencyKey }));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^idempotencyKey holds a character an HTTP header cannot carry/);
    expect((err as Error).message).not.toContain('1042');
  }
  for (const idempotencyKey of ['', '   ']) {
    const err = await thrownBy(() => client.deposits.create({ channel: 'reserved_va' }, { idempotencyKey }));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^idempotencyKey is empty/);
  }
  expect(sent.count).toBe(0);
  // A key of visible ASCII goes as given.
  await client.deposits.create({ channel: 'reserved_va' }, { idempotencyKey: 'order 1042/a' });
  expect(sent.count).toBe(1);
});

test('a baseUrl that holds credentials, or is no URL, is refused before anything is sent, without echoing it', async () => {
  for (const baseUrl of ['http://admin:hunter2@127.0.0.1:1', 'not a url hunter2', 'ftp://127.0.0.1/hunter2']) {
    const { client, sent } = countingClient({ baseUrl, apiKey });
    const err = await thrownBy(() => client.channels.list());
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^baseUrl /);
    expect((err as Error).message).not.toContain('hunter2');
    expect(sent.count).toBe(0);
  }
});

test('the API key is in no printout of the client: not JSON.stringify, not util.inspect', () => {
  const client = new CowrieClient({ baseUrl: gateway.url, apiKey });
  expect(JSON.stringify(client)).not.toContain(apiKey);
  expect(inspect(client, { depth: Infinity, showHidden: true, getters: true })).not.toContain(apiKey);
  expect(Object.values(client).map((v) => JSON.stringify(v))).not.toContainEqual(expect.stringContaining(apiKey));
  expect(`${String(client)}`).not.toContain(apiKey);
});

test('the webhook signature verifier is exported', () => {
  const secret = 'a'.repeat(64);
  const rawBody = JSON.stringify({ id: 'd1', event: 'ping', created_at: new Date().toISOString(), data: {} });
  const header = webhookSignatureHeader(secret, Math.floor(Date.now() / 1000), rawBody);
  expect(verifyWebhookSignature({ rawBody, header, secret })).toBe(true);
  expect(verifyWebhookSignature({ rawBody: rawBody + ' ', header, secret })).toBe(false);
});

test('the Standard Webhooks form of a secret and signature are exported: whsec_ is the same key', () => {
  const secret = 'a'.repeat(64);
  const whsec = standardWebhooksSecret(secret);
  expect(whsec).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
  const key = Buffer.from(whsec.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update('d1.1795000000.{}').digest('base64');
  expect(standardWebhooksSignatureHeader(secret, 'd1', 1795000000, '{}')).toBe(`v1,${expected}`);
});

test('the test helpers, with a test key: a transfer in, a payout reversed, a sample event; a live key gets not_found', async () => {
  const testKey = await createKeyFor(env.db, workspaceId, 'test');
  const test = new CowrieClient({ baseUrl: gateway.url, apiKey: testKey });
  const account = await test.reservedAccounts.create({ customer_name: 'Ada Obi', customer_email: 'ada@example.com' });
  const paid = await test.testHelpers.transferIn({ account_number: account.account.account_number, amount: 3000 });
  expect(paid).toMatchObject({ status: 'credited', amount: '3000.000000', reserved_account_id: account.id });
  const sent = await test.transfers.create({ currency: 'NGN', amount: 1000, account_number: '0123456789', bank_code: '058' });
  expect(await test.testHelpers.reverseTransfer(sent.reference)).toMatchObject({ reference: sent.reference, status: 'reversed' });
  expect(await test.balances.list()).toContainEqual(expect.objectContaining({ currency: 'NGN', available: '3000.000000' }));
  expect(await test.testHelpers.triggerWebhook('collection.successful')).toMatchObject({ event: 'collection.successful', endpoints: 0 });
  await expect(test.testHelpers.verificationCode('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  const live = new CowrieClient({ baseUrl: gateway.url, apiKey });
  await expect(live.testHelpers.triggerWebhook('collection.successful')).rejects.toMatchObject({ status: 404, code: 'not_found', attempts: 1 });
});

test('the SDK types come from the document the gateway serves today', async () => {
  const served = await (await fetch(`${gateway.url}/v1/openapi.json`)).json();
  const committed = readFileSync(path.join(SDK_DIR, 'openapi.json'), 'utf8');
  // If this fails: npm run sdk:generate
  expect(served).toEqual(JSON.parse(committed));
  const hash = createHash('sha256').update(committed).digest('hex');
  expect(readFileSync(path.join(SDK_DIR, 'src/generated/openapi.ts'), 'utf8')).toContain(`sha256 ${hash}`);
});

test('every cursor list pages itself: for await walks every page, toArray stops at its limit, await answers the first page as before', async () => {
  const { workspace, key } = await createWorkspaceWithKey(env.db, { name: 'SDK pages' });
  await fundWallet(env.db, workspace.id, '1000');
  const proxy = await lossyProxy(0);
  try {
    const client = new CowrieClient({ baseUrl: proxy.url, apiKey: key });
    const accounts = ['0100000001', '0100000002', '0100000003'];
    for (const account_number of accounts) {
      await client.transfers.create({ currency: 'NGN', amount: 10, account_number, bank_code: '058' });
      await client.beneficiaries.create({ account_number, bank_code: '058', currency: 'NGN' });
    }
    const stored = await env.db.ledgerTransaction.findMany({ where: { workspaceId: workspace.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    expect(stored).toHaveLength(4);

    proxy.seen.length = 0;
    const walked: string[] = [];
    for await (const transaction of client.transactions.list({ limit: 1 })) walked.push(transaction.reference);
    expect(walked).toEqual(stored.map((t) => t.reference));
    // One request per page, the last one's next_cursor null.
    expect(proxy.seen.map((s) => new URL(s.url, proxy.url).searchParams.has('cursor'))).toEqual([false, true, true, true]);

    proxy.seen.length = 0;
    expect((await client.transactions.list({ limit: 2 }).toArray({ limit: 3 })).map((t) => t.reference)).toEqual(stored.slice(0, 3).map((t) => t.reference));
    expect(proxy.seen).toHaveLength(2);

    const firstPage = await client.transactions.list({ limit: 3 });
    expect(firstPage.data).toHaveLength(3);
    expect(firstPage.meta.next_cursor).toEqual(expect.any(String));

    const beneficiaries: number[] = [];
    for await (const b of client.beneficiaries.list({ limit: 2 })) beneficiaries.push(b.id);
    expect(beneficiaries).toHaveLength(3);
    expect(await client.beneficiaries.list()).toHaveLength(3);
    const recipients = await client.recipients.list({ limit: 2 }).toArray({ limit: 10 });
    expect(recipients.map((r) => r.account_number).sort()).toEqual(accounts);
    for (const email of ['p1@example.com', 'p2@example.com']) await client.reservedAccounts.create({ customer_name: 'Ada Obi', customer_email: email });
    const reserved = await client.reservedAccounts.list({ limit: 1 }).toArray({ limit: 5 });
    expect(reserved.map((a) => a.customer.email)).toEqual(['p2@example.com', 'p1@example.com']);
  } finally {
    await proxy.close();
  }
});

test('an error code types its details, and the class narrows by code', async () => {
  const err = await new CowrieClient({ baseUrl: gateway.url, apiKey }).transfers
    .create({ currency: 'NGN', amount: 'x' as unknown as number, account_number: '0123456789', bank_code: '058' })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CowrieApiError);
  if (!(err instanceof CowrieApiError) || err.code !== 'invalid_request') throw new Error('expected invalid_request');
  const field: string | undefined = err.details?.field;
  expect(field).toBe('amount');
});

/** Whether `block` is a run of whole lines of `example`, each with the same indent added. */
function isExcerpt(block: string, example: string): boolean {
  const want = block.replace(/\n$/, '').split('\n');
  const lines = example.split('\n');
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (!lines[i]!.endsWith(want[0]!)) continue;
    const indent = lines[i]!.slice(0, lines[i]!.length - want[0]!.length);
    if (/^ *$/.test(indent) && want.every((line, j) => lines[i + j] === (line === '' ? '' : indent + line))) return true;
  }
  return false;
}

test('every TypeScript and JavaScript block of the README is an excerpt of an example the tests compile and run', () => {
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  // quickstart.ts runs above; the others run from the packed package (packed.test.ts).
  const files = ['quickstart.ts', 'rehearse.mts', 'pay-and-receive.mjs', 'pay-and-receive.cjs', 'receive-webhooks.mjs', 'receive-webhooks-express.cjs'];
  const examples = files.map((f) => readFileSync(path.join(SDK_DIR, 'examples', f), 'utf8'));
  const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] !== 'sh' && m[1] !== 'bash').map((m) => ({ lang: m[1]!, code: m[2]! }));
  expect(blocks.filter((b) => b.lang === 'ts').length).toBeGreaterThanOrEqual(6);
  expect(blocks.filter((b) => b.lang === 'js').length).toBeGreaterThanOrEqual(7);
  // Every code block is ts or js: a block in another language would escape this check.
  expect(blocks.filter((b) => b.lang !== 'ts' && b.lang !== 'js')).toEqual([]);
  // If this fails, the README shows code the tests do not run: copy it from the example, or put it in one.
  expect(blocks.filter((block) => !examples.some((example) => isExcerpt(block.code, example))).map((b) => b.code)).toEqual([]);
  // The excerpt check itself: a changed line, or lines not next to each other, are not an excerpt.
  expect(isExcerpt('const a = 1;\nconst b = 2;\n', 'x\n  const a = 1;\n  const b = 2;\n')).toBe(true);
  expect(isExcerpt('const a = 1;\nconst b = 3;\n', 'x\n  const a = 1;\n  const b = 2;\n')).toBe(false);
  expect(isExcerpt('const a = 1;\nconst b = 2;\n', 'const a = 1;\nx\nconst b = 2;\n')).toBe(false);
});
