// Risk: a published SDK that does not stand alone or does not work: a tarball
// that needs the server's packages or a build it does not hold, an entry point
// (import or require, code or types) that does not load outside the workspace,
// a verifier that disagrees with what the webhook sender really signs.
//
// Packs the SDK as `npm publish` would (prepack builds dist/), installs the
// tarball offline into an empty folder outside the repository, and runs from
// there: the plain-Node examples against a live gateway, payout worker and
// webhook sender; the TypeScript compiler over a consumer of its types; the
// packed verifier over what the sender delivered.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeGatewayDeps, createApp, createGatewayDeps, TRIGGERABLE_EVENTS, type GatewayDeps } from '@cowrie/gateway';
import { startPayoutWorker, type RunningPayoutWorker } from '@cowrie/payout-worker';
import { Webhook } from 'standardwebhooks';
import { startVerificationWorker, type RunningVerificationWorker } from '@cowrie/verification-dispatcher';
import {
  createKeyFor,
  createUserFor,
  createWorkspaceWithKey,
  freePort,
  listenGateway,
  startHttpReceiver,
  waitFor,
  type HttpReceiver,
  type RunningGateway,
  type TestEnv,
} from '@cowrie/testing';
import { createTestEnv, fundWallet } from '@cowrie/ledger/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { createAddressPolicy, createWebhookEndpoint } from '@cowrie/webhooks';

const REPO = path.join(__dirname, '../..');
const SDK_DIR = path.join(REPO, 'packages/sdk');
const EXAMPLES = ['pay-and-receive.mjs', 'pay-and-receive.cjs'];
/** The TypeScript example: compiled by tsc against the installed package, then run by Node. */
const REHEARSAL = 'rehearse.mts';
/** The webhook receivers the README shows, each a server that runs until stopped. */
const RECEIVERS = ['receive-webhooks.mjs', 'receive-webhooks-express.cjs'];

let env: TestEnv;
let gateway: RunningGateway<GatewayDeps>;
let payouts: RunningPayoutWorker;
let webhooks: RunningWebhookWorker;
let verifications: RunningVerificationWorker;
let receiver: HttpReceiver;
/** A temporary folder outside the repository: the tarball, and `consumer/` with it installed. */
let work: string;
let consumer: string;
let packed: { filename: string; size: number; files: Array<{ path: string }> };
let consumerTypecheck: Promise<Run>;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws, so a failure shows its output. */
function run(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

// npm, as a user would run it: without the settings of an npm script this test may be running under.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

async function packAndInstall() {
  work = mkdtempSync(path.join(tmpdir(), 'cowrie-sdk-'));
  // prepack builds dist/ (the declarations take a while on a busy machine).
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR, env: npmEnv, timeoutMs: 150_000 });
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  [packed] = JSON.parse(pack.stdout);
  consumer = path.join(work, 'consumer');
  mkdirSync(consumer);
  // No dependencies, so no registry: --offline.
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(work, packed.filename)], { cwd: consumer, env: npmEnv });
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  // The examples the package ships, copied next to the consumer's package.json as a user would.
  for (const example of [...EXAMPLES, REHEARSAL, ...RECEIVERS]) copyFileSync(path.join(installed(), 'examples', example), path.join(consumer, example));
  consumerTypecheck = typecheckConsumer();
}

async function startStack() {
  env = await createTestEnv({ PUBLIC_API_RATE_LIMIT: '1000' });
  gateway = await listenGateway<GatewayDeps>(env, { createDeps: createGatewayDeps, createApp: (deps) => createApp(deps), closeDeps: closeGatewayDeps });
  payouts = await startPayoutWorker(env.config, env.logger);
  webhooks = await startWebhookWorker(env.config, env.logger);
  verifications = await startVerificationWorker(env.config, env.logger);
  receiver = await startHttpReceiver();
}

beforeAll(() => Promise.all([packAndInstall(), startStack()]), 180_000);
afterAll(async () => {
  await verifications?.stop();
  await webhooks?.stop();
  await payouts?.stop();
  await gateway?.close();
  await receiver?.close();
  await env?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The TypeScript compiler over a consumer of the installed package, an ESM and
 * a CommonJS module. Started as soon as the package is installed; it runs while
 * the examples do.
 */
function typecheckConsumer(): Promise<Run> {
  writeFileSync(
    path.join(consumer, 'consumer.mts'),
    `import { CowrieApiError, CowrieClient, constructEvent, verifyWebhookSignature, type components } from '@cowrie/sdk';
const cowrie = new CowrieClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'key' });
export const transfer: Promise<{ id: number; status: 'processing' | 'completed' | 'failed' | 'reversed' }> = cowrie.transfers.create({ currency: 'NGN', amount: 1500, account_number: '0123456789', bank_code: '058' });
// @ts-expect-error: the API has no such field
export const misspelt = cowrie.transfers.create({ currency: 'NGN', amount: 1500, acount_number: '0123456789', bank_code: '058' });
export const verified: boolean = verifyWebhookSignature({ rawBody: new Uint8Array(), header: undefined, secret: 's' });
// @ts-expect-error: the secret is required
verifyWebhookSignature({ rawBody: '{}', header: 't=1,v1=00' });
export const isApiError = (err: unknown): err is CowrieApiError => err instanceof CowrieApiError && err.requestId !== '';
export type Schemas = keyof components['schemas'];
// An error's code types its details; an event's name types its data.
export function retryAfter(err: unknown): number | undefined {
  if (!(err instanceof CowrieApiError)) return undefined;
  if (err.code === 'rate_limited') return err.details?.retry_after_seconds;
  if (err.code === 'invalid_request') {
    // @ts-expect-error: an invalid_request's details.field is a string, not a number
    const field: number | undefined = err.details?.field;
    return field;
  }
  return undefined;
}
export function amountOf(rawBody: Buffer, headers: Record<string, string>): string | undefined {
  const event = constructEvent(rawBody, headers, 'whsec_x');
  if (event.event === 'collection.successful') return event.data.amount;
  // @ts-expect-error: a transfer's data has no paid_at
  if (event.event === 'transfer.completed') return event.data.paid_at;
  return undefined;
}
export async function references(): Promise<string[]> {
  const out: string[] = [];
  for await (const transaction of cowrie.transactions.list({ limit: 50 })) out.push(transaction.reference);
  const firstPage: { meta: { next_cursor: string | null } } = await cowrie.transactions.list();
  const beneficiaries: Array<{ id: number }> = await cowrie.beneficiaries.list().toArray({ limit: 10 });
  return [...out, String(firstPage.meta.next_cursor), String(beneficiaries.length)];
}
`,
  );
  writeFileSync(
    path.join(consumer, 'consumer.cts'),
    `import sdk = require('@cowrie/sdk');
const cowrie = new sdk.CowrieClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'key' });
export const balances: Promise<Array<{ currency: string; available: string }>> = cowrie.balances.list();
export const header: 'X-Cowrie-Signature' = sdk.SIGNATURE_HEADER;
// @ts-expect-error: a string header, not a number
sdk.verifyWebhookSignature({ rawBody: '{}', header: 42, secret: 's' });
`,
  );
  // skipLibCheck keeps this fast, and would let a declaration that names a package the
  // consumer does not have pass as an `any`; each @ts-expect-error line fails on one.
  return run(
    process.execPath,
    [
      path.join(REPO, 'node_modules/typescript/bin/tsc'),
      ...['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16'],
      ...['--types', 'node', '--typeRoots', path.join(REPO, 'node_modules/@types'), 'consumer.mts', 'consumer.cts'],
    ],
    { cwd: consumer },
  );
}

/** The installed package's folder inside the consumer. */
const installed = () => path.join(consumer, 'node_modules/@cowrie/sdk');

/** A funded workspace with an API key and a webhook endpoint at `url` (made in the database, as the dashboard would). */
async function payingWorkspace(name: string, url: string) {
  const { workspace, key: apiKey } = await createWorkspaceWithKey(env.db, { name });
  await fundWallet(env.db, workspace.id, '100000');
  const endpoint = await createWebhookEndpoint(env.db, {
    workspaceId: workspace.id,
    input: { url },
    encryptionKey: env.config.ENCRYPTION_KEY,
    maxEndpoints: env.config.WEBHOOK_ENDPOINTS_MAX,
    policy: createAddressPolicy(env.config.WEBHOOK_ALLOWED_CIDRS),
  });
  return { workspaceId: workspace.id, apiKey, endpoint };
}

/**
 * What a business has before its first test-mode rehearsal, made as it would
 * make it: an unfunded test side, a test key, and a test-mode webhook endpoint
 * at `url` created over HTTP by a signed-in owner (the dashboard's call).
 */
async function rehearsingWorkspace(name: string, url: string) {
  const { workspace, key: liveKey } = await createWorkspaceWithKey(env.db, { name });
  const apiKey = await createKeyFor(env.db, workspace.id, 'test');
  const owner = await createUserFor(env.db, workspace.id);
  const json = { 'content-type': 'application/json' };
  const login = await fetch(`${gateway.url}/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  });
  const { token } = ((await login.json()) as { data: { token: string } }).data;
  const created = await fetch(`${gateway.url}/webhook-endpoints`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}`, 'cowrie-mode': 'test' },
    body: JSON.stringify({ url, events: ['*'] }),
  });
  expect(created.status).toBe(201);
  const endpoint = ((await created.json()) as { data: { id: number; secret: string } }).data;
  return { workspaceId: workspace.test_workspace_id, apiKey, liveKey, endpoint };
}

test('the tarball holds the bundles, their declarations, the plain-Node examples, the README and package.json, and needs no other package', () => {
  expect(packed.files.map((f) => f.path).sort()).toEqual([
    'README.md',
    'dist/index.cjs',
    'dist/index.d.cts',
    'dist/index.d.mts',
    'dist/index.mjs',
    'examples/pay-and-receive.cjs',
    'examples/pay-and-receive.mjs',
    'examples/receive-webhooks-express.cjs',
    'examples/receive-webhooks.mjs',
    'examples/rehearse.mts',
    'package.json',
  ]);
  const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'));
  expect(manifest).toMatchObject({
    name: '@cowrie/sdk',
    license: 'MIT',
    engines: { node: '>=20.19' },
    publishConfig: { access: 'public' },
    repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//), directory: 'packages/sdk' },
    homepage: expect.stringMatching(/^https:\/\//),
    bugs: { url: expect.stringMatching(/^https:\/\//) },
  });
  expect(manifest.private).toBeUndefined();
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) expect(manifest[field]).toBeUndefined();
  // No file names another package of this repository. The manifest's devDependencies (the
  // workspace's test tooling) are the exception npm makes for every package: never installed.
  const otherPackage = /@cowrie\/(?!sdk\b)[\w-]+/;
  const { devDependencies: _devDependencies, ...rest } = manifest;
  expect(JSON.stringify(rest)).not.toMatch(otherPackage);
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory() ? files(path.join(dir, f)) : [path.relative(installed(), path.join(dir, f))]));
  const naming = files(installed())
    .filter((file) => file !== 'package.json')
    .map((file) => [file, readFileSync(path.join(installed(), file), 'utf8').match(otherPackage)?.[0]])
    .filter(([, name]) => name);
  expect(naming).toEqual([]);
});

test.each(EXAMPLES)('examples/%s, run by Node from the installed tarball, pays and verifies the webhook the sender signed for it', async (example) => {
  const port = await freePort();
  const { workspaceId, apiKey, endpoint } = await payingWorkspace(`SDK ${example}`, `http://127.0.0.1:${port}/webhooks/cowrie`);
  // The customer's process: Node and the example's settings, nothing of the server's.
  const result = await run(process.execPath, [example], {
    cwd: consumer,
    env: { PATH: process.env.PATH, COWRIE_URL: gateway.url, COWRIE_API_KEY: apiKey, COWRIE_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
    timeoutMs: 25_000,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const out = JSON.parse(result.stdout);
  const [transaction] = await env.db.ledgerTransaction.findMany({ where: { workspaceId, counterpartyAccount: '0123456789' } });
  const expected: Record<string, unknown> = {
    available: '100000.000000',
    transfer: { id: transaction!.id, status: 'completed' },
    event: { id: expect.any(String), event: 'transfer.completed' },
  };
  if (example.endsWith('.mjs')) {
    // The README's retry with a stored key pays once; its CowrieApiError fragment names the field at fault.
    const retriedByHand = await env.db.ledgerTransaction.findMany({ where: { workspaceId, counterpartyAccount: '0444444444' } });
    expect(retriedByHand).toHaveLength(1);
    expected.retried = { paid: retriedByHand[0]!.id, retried: retriedByHand[0]!.id };
    expected.refused = expect.stringMatching(/^amount: /);
  }
  expect(out).toEqual(expected);
  // The example answered 204, which it does only for a signature it verified.
  const delivery = await waitFor(() => env.db.webhookDelivery.findFirst({ where: { deliveryId: out.event.id, completedAt: { not: null } } }));
  expect(delivery).toMatchObject({ endpointId: endpoint.id, event: 'transfer.completed', statusCode: 204, ok: 1, attempts: 1 });
});

test.each(RECEIVERS)(
  'examples/%s, run by Node from the installed tarball, answers 204 to a delivery the sender signed and 400 to a bad signature',
  async (example) => {
    const port = await freePort();
    const { apiKey, endpoint } = await payingWorkspace(`SDK ${example}`, `http://127.0.0.1:${port}/webhooks/cowrie`);
    // The customer's process. Express is not in the tarball: the user installs it; here the repository's copy.
    const child = spawn(process.execPath, [example], {
      cwd: consumer,
      env: { PATH: process.env.PATH, COWRIE_WEBHOOK_SECRET: endpoint.secret, PORT: String(port), NODE_PATH: path.join(REPO, 'node_modules') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitFor(() => stdout.startsWith('listening\n') || stderr !== '', 15_000);
      expect(stderr).toBe('');
      const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'));
      const sdk = (await import(path.join(installed(), manifest.exports['.'].require.default))) as typeof import('@cowrie/sdk');
      const transfer = await new sdk.CowrieClient({ baseUrl: gateway.url, apiKey }).transfers.create({
        currency: 'NGN',
        amount: 300,
        account_number: '0555555555',
        bank_code: '058',
      });
      // The webhook sender's real delivery, signed with the endpoint's secret: verified, 204, at the first attempt.
      const delivery = await waitFor(
        () => env.db.webhookDelivery.findFirst({ where: { endpointId: endpoint.id, event: 'transfer.completed', completedAt: { not: null } } }),
        20_000,
      );
      expect(delivery).toMatchObject({ statusCode: 204, ok: 1, attempts: 1 });
      await waitFor(() => stdout.includes(delivery.deliveryId), 10_000);

      // A body signed with another secret, a tampered body, and no signature: 400, and never acted on.
      const url = `http://127.0.0.1:${port}/webhooks/cowrie`;
      const t = Math.floor(Date.now() / 1000);
      const forged = JSON.stringify({
        id: 'forged',
        event: 'transfer.completed',
        created_at: new Date().toISOString(),
        data: { id: transfer.id },
        livemode: true,
      });
      const post = (body: string, headers: Record<string, string>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.status);
      expect(await post(forged, { 'x-cowrie-signature': sdk.webhookSignatureHeader('f'.repeat(64), t, forged) })).toBe(400);
      const signed = sdk.webhookSignatureHeader(endpoint.secret, t, forged);
      expect(await post(forged.replace('forged', 'forget'), { 'x-cowrie-signature': signed })).toBe(400);
      expect(await post(forged, {})).toBe(400);
      // And the same body with the right secret is accepted: the 400s were the signature's.
      expect(await post(forged, { 'x-cowrie-signature': signed })).toBe(204);
      await waitFor(() => stdout.includes('"forged"'), 10_000);
      expect(stdout.trim().split('\n')).toEqual([
        'listening',
        JSON.stringify({ id: delivery.deliveryId, event: 'transfer.completed' }),
        JSON.stringify({ id: 'forged', event: 'transfer.completed' }),
      ]);
      expect(stderr).toBe('');
    } finally {
      child.kill();
      await exited;
    }
  },
  60_000,
);

test('the packed verifier accepts what the webhook sender signed and refuses a tampered body, a wrong secret or a stale time', async () => {
  const { apiKey, endpoint } = await payingWorkspace('SDK verifier', `${receiver.url}/hooks`);
  const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'));
  // The package's require() entry, as Node resolves it for a consumer.
  const sdk = (await import(path.join(installed(), manifest.exports['.'].require.default))) as typeof import('@cowrie/sdk');
  const transfer = await new sdk.CowrieClient({ baseUrl: gateway.url, apiKey }).transfers.create({
    currency: 'NGN',
    amount: 700,
    account_number: '0222222222',
    bank_code: '058',
  });
  const delivered = await waitFor(() => receiver.requests.find((r) => JSON.parse(r.rawBody.toString('utf8')).data?.id === transfer.id));
  const header = delivered.headers[sdk.SIGNATURE_HEADER.toLowerCase()] as string;
  const secret = endpoint.secret;
  const rawBody = delivered.rawBody;
  const sentAt = Number(/^t=(\d+),/.exec(header)![1]) * 1000;

  expect(sdk.verifyWebhookSignature({ rawBody, header, secret })).toBe(true);
  expect(sdk.verifyWebhookSignature({ rawBody: rawBody.toString('utf8'), header, secret })).toBe(true);
  const tampered = Buffer.from(rawBody.toString('utf8').replace('"700.000000"', '"7000.000000"'));
  expect(tampered.equals(rawBody)).toBe(false);
  expect(sdk.verifyWebhookSignature({ rawBody: tampered, header, secret })).toBe(false);
  expect(sdk.verifyWebhookSignature({ rawBody: Buffer.concat([rawBody, Buffer.from('\n')]), header, secret })).toBe(false);
  expect(sdk.verifyWebhookSignature({ rawBody, header, secret: 'f'.repeat(64) })).toBe(false);
  expect(sdk.verifyWebhookSignature({ rawBody, header, secret, now: sentAt + 301_000 })).toBe(false);
  expect(sdk.verifyWebhookSignature({ rawBody, header, secret, now: sentAt + 299_000 })).toBe(true);
});

test('examples/rehearse.mts, compiled against the installed tarball and run with a test key on an unfunded test side, rehearses a deposit, a verification, a reversal and every event through the SDK alone', async () => {
  const port = await freePort();
  const { workspaceId, apiKey, liveKey, endpoint } = await rehearsingWorkspace('SDK rehearsal', `http://127.0.0.1:${port}/webhooks/cowrie`);
  const tsc = await run(
    process.execPath,
    [
      path.join(REPO, 'node_modules/typescript/bin/tsc'),
      ...['--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16'],
      ...['--types', 'node', '--typeRoots', path.join(REPO, 'node_modules/@types'), REHEARSAL],
    ],
    { cwd: consumer },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  // The customer's process: Node, the compiled example and its settings; no database, no CLI.
  const result = await run(process.execPath, [REHEARSAL.replace(/\.mts$/, '.mjs')], {
    cwd: consumer,
    env: { PATH: process.env.PATH, COWRIE_URL: gateway.url, COWRIE_API_KEY: apiKey, COWRIE_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
    timeoutMs: 60_000,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const out = JSON.parse(result.stdout);
  const transactions = await env.db.ledgerTransaction.findMany({ where: { workspaceId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  const payout = transactions.find((t) => t.type === 'debit')!;
  expect(out).toEqual({
    deposit: expect.stringMatching(/^5000\.000000 NGN into \d{10}$/),
    verification: ['verified', expect.stringMatching(/^[0-9a-f-]{36} verified$/)],
    reversal: `${payout.reference} reversed`,
    triggered: expect.arrayContaining(TRIGGERABLE_EVENTS.map((e) => e.name)),
    // Every transaction of the test side, one page at a time, and the first two.
    transactions: { all: transactions.map((t) => t.status), latest: transactions.slice(0, 2).map((t) => t.reference) },
    refused: expect.stringMatching(/^invalid_request: Exceeds balance/),
  });
  // Nothing but the rehearsal moved money: the deposit paid for the payout, the reversal paid it back, and the refusal made nothing.
  expect(transactions.map((t) => [t.type, t.category, t.status]).reverse()).toEqual([
    ['credit', 'collection', 'completed'],
    ['debit', expect.any(String), 'reversed'],
    ['credit', 'reversal', 'completed'],
  ]);
  // Every delivery was verified by constructEvent: the receiver answers 204 only then.
  const deliveries = await env.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id, completedAt: { not: null } } });
  expect(deliveries.length).toBeGreaterThanOrEqual(TRIGGERABLE_EVENTS.length + 3);
  expect(deliveries.filter((d) => d.statusCode !== 204)).toEqual([]);
  // The example names every event the trigger sends.
  const example = readFileSync(path.join(installed(), 'examples', REHEARSAL), 'utf8');
  for (const event of TRIGGERABLE_EVENTS) expect(example).toContain(`'${event.name}',`);
  // A live key sees no test helper.
  const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'));
  const sdk = (await import(path.join(installed(), manifest.exports['.'].require.default))) as typeof import('@cowrie/sdk');
  await expect(new sdk.CowrieClient({ baseUrl: gateway.url, apiKey: liveKey }).testHelpers.triggerWebhook('transfer.completed')).rejects.toMatchObject({
    status: 404,
    code: 'not_found',
  });
}, 90_000);

test('the packed constructEvent accepts a real delivery by either header set and either form of the secret, as the standardwebhooks package does, and refuses the rest', async () => {
  const { apiKey, endpoint } = await payingWorkspace('SDK constructEvent', `${receiver.url}/events`);
  const manifest = JSON.parse(readFileSync(path.join(installed(), 'package.json'), 'utf8'));
  const sdk = (await import(path.join(installed(), manifest.exports['.'].require.default))) as typeof import('@cowrie/sdk');
  const transfer = await new sdk.CowrieClient({ baseUrl: gateway.url, apiKey }).transfers.create({
    currency: 'NGN',
    amount: 900,
    account_number: '0333333333',
    bank_code: '058',
  });
  const delivered = await waitFor(() => receiver.requests.find((r) => JSON.parse(r.rawBody.toString('utf8')).data?.id === transfer.id));
  const { rawBody, headers } = delivered;
  const whsec = sdk.standardWebhooksSecret(endpoint.secret);
  const cowrieOnly = { 'x-cowrie-signature': headers['x-cowrie-signature'] as string };
  const standardOnly = Object.fromEntries(Object.values(sdk.STANDARD_WEBHOOKS_HEADERS).map((name) => [name, headers[name] as string]));

  const event = sdk.constructEvent(rawBody, headers, endpoint.secret);
  expect(event).toMatchObject({ event: 'transfer.completed', data: { id: transfer.id, status: 'completed', amount: '900.000000' } });
  expect(sdk.constructEvent(rawBody, cowrieOnly, whsec)).toEqual(event);
  expect(sdk.constructEvent(rawBody.toString('utf8'), new Headers(standardOnly), endpoint.secret)).toEqual(event);
  expect(sdk.constructEvent(rawBody, standardOnly, whsec)).toEqual(event);
  // The standard's own library agrees on the same delivery.
  expect(new Webhook(whsec).verify(rawBody.toString('utf8'), standardOnly)).toEqual(event);

  const refusal = (body: string | Buffer, h: Record<string, string>, secret: string, now?: number) => {
    try {
      sdk.constructEvent(body, h, secret, { now });
      return 'accepted';
    } catch (err) {
      return err instanceof sdk.CowrieWebhookError ? err.reason : String(err);
    }
  };
  const tampered = rawBody.toString('utf8').replace('"900.000000"', '"9000.000000"');
  const sentAt = Number(standardOnly['webhook-timestamp']) * 1000;
  expect(refusal(tampered, cowrieOnly, endpoint.secret)).toBe('invalid_signature');
  expect(refusal(tampered, standardOnly, whsec)).toBe('invalid_signature');
  expect(refusal(rawBody, cowrieOnly, 'f'.repeat(64))).toBe('invalid_signature');
  expect(refusal(rawBody, {}, endpoint.secret)).toBe('missing_signature');
  expect(refusal(rawBody, standardOnly, endpoint.secret, sentAt + 301_000)).toBe('timestamp_out_of_tolerance');
  expect(refusal(rawBody, cowrieOnly, endpoint.secret, sentAt + 299_000)).toBe('accepted');
  const notAnEvent = '{"hello":"world"}';
  const signed = { 'x-cowrie-signature': sdk.webhookSignatureHeader(endpoint.secret, Math.floor(Date.now() / 1000), notAnEvent) };
  expect(refusal(notAnEvent, signed, endpoint.secret)).toBe('invalid_body');
});

test('its declarations type a consumer on their own, under import and require', async () => {
  const tsc = await consumerTypecheck;
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.code).toBe(0);
});
