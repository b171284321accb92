// Risk: the dashboard's session reads of balances and the ledger showing one
// workspace another's money, or live data in test mode (the payout rails' breakers
// included); and the dashboard's
// page served without its Content-Security-Policy, or client routes that 404.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, spawnServiceProcess, waitFor } from '@cowrie/testing';
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';
import { DASHBOARD_CSP } from '@cowrie/gateway';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack();
});
afterAll(async () => {
  await stack?.close();
});

const transfer = (apiKey: string, amount: number) =>
  call(stack.url, 'POST', '/v1/transfers', {
    token: apiKey,
    body: { currency: 'NGN', amount, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' },
  });
const ngn = (balances: Array<{ currency: string; available: string }>) => balances.find((b) => b.currency === 'NGN')!.available;

test("a session reads its own workspace's balances and transactions, never another's, and test mode reads the test side", async () => {
  const a = await signInNewWorkspace(stack, 'Workspace A');
  const b = await signInNewWorkspace(stack, 'Workspace B');
  await fund(stack.env.db, a.workspaceId, 'NGN', '1000');
  expect((await transfer(a.apiKey, 150)).body.data.status).toBe('completed');
  expect((await transfer(a.apiKey, 25)).body.data.status).toBe('completed');

  const aBalances = await call(stack.url, 'GET', '/balances', { token: a.token });
  expect(aBalances.status).toBe(200);
  // The same answer as the API key's read of the same workspace.
  expect(aBalances.body.data).toEqual((await call(stack.url, 'GET', '/v1/balances', { token: a.apiKey })).body.data);
  expect(ngn(aBalances.body.data)).toBe('825.000000');
  const aPage = await call(stack.url, 'GET', '/transactions?limit=1', { token: a.token });
  expect(aPage.body.data.map((t: { amount: string }) => t.amount)).toEqual(['25.000000']);
  const aNext = await call(stack.url, 'GET', `/transactions?limit=1&cursor=${encodeURIComponent(aPage.body.meta.next_cursor)}`, { token: a.token });
  expect(aNext.body.data.map((t: { amount: string }) => t.amount)).toEqual(['150.000000']);

  expect(ngn((await call(stack.url, 'GET', '/balances', { token: b.token })).body.data)).toBe('0.000000');
  expect((await call(stack.url, 'GET', '/transactions', { token: b.token })).body.data).toEqual([]);
  // B cannot page into A's ledger with A's cursor either.
  expect((await call(stack.url, 'GET', `/transactions?cursor=${encodeURIComponent(aPage.body.meta.next_cursor)}`, { token: b.token })).body.data).toEqual([]);

  const test = { 'Cowrie-Mode': 'test' };
  expect(ngn((await call(stack.url, 'GET', '/balances', { token: a.token, headers: test })).body.data)).toBe('0.000000');
  expect((await call(stack.url, 'GET', '/transactions', { token: a.token, headers: test })).body.data).toEqual([]);
});

test("the payout rails' breakers: one live rail (nothing to fail over to) is closed, test mode's is the sandbox; any member reads them, an API key cannot", async () => {
  const a = await signInNewWorkspace(stack, 'Workspace Rails');
  const rails = await call(stack.url, 'GET', '/payout-rails', { token: a.token });
  expect(rails.status).toBe(200);
  expect(rails.body.data).toEqual([{ rail: 'sandbox', state: 'closed', failures: 0, open_until: null }]);
  const testSide = await call(stack.url, 'GET', '/payout-rails', { token: a.token, headers: { 'Cowrie-Mode': 'test' } });
  expect(testSide.body.data).toEqual([{ rail: 'sandbox', state: 'closed', failures: 0, open_until: null }]);
  await stack.env.db.dashboardUser.updateMany({ where: { workspaceId: a.workspaceId }, data: { role: 'member' } });
  expect((await call(stack.url, 'GET', '/payout-rails', { token: a.token })).status).toBe(200);
  expect((await call(stack.url, 'GET', '/payout-rails', { token: a.apiKey })).status).toBe(401);
  expect((await call(stack.url, 'GET', '/v1/payout-rails', { token: a.apiKey })).status).toBe(404);
});

test('the reads need a session: an API key or no token is 401, a bad filter 400', async () => {
  const a = await signInNewWorkspace(stack, 'Workspace C');
  expect((await call(stack.url, 'GET', '/balances', { token: a.apiKey })).status).toBe(401);
  expect((await call(stack.url, 'GET', '/transactions')).status).toBe(401);
  const bad = await call(stack.url, 'GET', '/transactions?status=lost', { token: a.token });
  expect(bad.status).toBe(400);
  expect(bad.body.error.code).toBe('invalid_request');
});

test('/dashboard serves the built app under a strict Content-Security-Policy; client routes get index.html, missing assets 404', async () => {
  for (const path of ['/dashboard', '/dashboard/', '/dashboard/webhooks', '/dashboard/api-keys']) {
    const res = await fetch(`${stack.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    // No inline script: every script and stylesheet is a file of /dashboard/assets.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style/);
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const file = await fetch(`${stack.url}${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(file.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    }
  }
  expect(DASHBOARD_CSP).toContain("script-src 'self'");
  expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
  const missing = await call(stack.url, 'GET', '/dashboard/assets/nothing-here.js');
  expect(missing.status).toBe(404);
  expect(missing.body.error.code).toBe('not_found');
});

test('the compiled gateway, as production runs it, serves the dashboard its build copied beside it (dist/dashboard/)', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const gateway = spawnServiceProcess(stack.env.config, 'gateway', { PORT: String(port), HOST: '127.0.0.1' });
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, 30_000, 100);
    const page = await fetch(`${base}/dashboard/transactions`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    const html = await page.text();
    // The very files of the dashboard's build, which the gateway's build copied beside it: the
    // production tree and the image hold that copy (no node_modules/@cowrie/dashboard there).
    const built = (dir: string) => readFileSync(path.join(__dirname, dir, 'index.html'), 'utf8');
    expect(built('../../services/gateway/dist/dashboard')).toBe(built('../../apps/dashboard/dist'));
    expect(html).toBe(built('../../services/gateway/dist/dashboard'));
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    expect((await fetch(`${base}${script}`)).status).toBe(200);
    expect(gateway.output()).not.toMatch(/dashboard is not built/);
  } finally {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
});
