// Risk: the dashboard routes as an unmetered lever: a session hammering the
// gateway, a workspace piling up endpoints, or test pings used to flood
// someone's server. Each has a limit with its environment override, and each
// refusal is the API's 429 rate_limited with details.retry_after_seconds.
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { createUserFor, createWorkspaceWithKey, startHttpReceiver, type HttpReceiver } from '@cowrie/testing';
import { call, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let worker: RunningWebhookWorker;
let receiver: HttpReceiver;
beforeAll(async () => {
  gw = await startTestGateway({ DASHBOARD_RATE_LIMIT: '8', WEBHOOK_ENDPOINTS_MAX: '2', WEBHOOK_TEST_RATE_LIMIT: '2' });
  worker = await startWebhookWorker(gw.env.config, gw.env.logger);
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
  await gw?.close();
});

async function signIn() {
  const { workspace } = await createWorkspaceWithKey(gw.env.db);
  const user = await createUserFor(gw.env.db, workspace.id);
  const login = await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
  expect(login.status).toBe(200);
  return login.body.data.token as string;
}

/** Starts at the beginning of a budget window, so a count cannot straddle two. */
async function freshWindow() {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));
}

function expectRefused(res: Awaited<ReturnType<typeof call>>, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'rate_limited', details: { limit, retry_after_seconds: expect.any(Number) } });
  expect(res.body.error.details.retry_after_seconds).toBeGreaterThan(0);
  expect(res.headers.get('retry-after')).toBe(String(res.body.error.details.retry_after_seconds));
}

test('a dashboard session has a request budget (DASHBOARD_RATE_LIMIT per 60 s), with the budget headers; another session has its own', async () => {
  await freshWindow();
  const token = await signIn();
  for (let i = 0; i < 8; i++) {
    const res = await call(gw.url, 'GET', '/webhook-endpoints', { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('8');
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(7 - i));
  }
  const refused = await call(gw.url, 'GET', '/webhook-endpoints', { token });
  expectRefused(refused, 8);
  expect(refused.headers.get('retry-after')).toBe(String(refused.body.error.details.retry_after_seconds));
  expect((await call(gw.url, 'GET', '/webhook-endpoints', { token: await signIn() })).status).toBe(200);
});

test('a workspace has at most WEBHOOK_ENDPOINTS_MAX endpoints, even when created concurrently', async () => {
  await freshWindow();
  const token = await signIn();
  const created = await Promise.all(
    Array.from({ length: 4 }, (_, i) => call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${receiver.url}/hooks/${i}` } })),
  );
  expect(created.filter((r) => r.status === 201)).toHaveLength(2);
  for (const res of created.filter((r) => r.status !== 201)) expectRefused(res, 2);
  const first = created.find((r) => r.status === 201)!;
  expect((await call(gw.url, 'DELETE', `/webhook-endpoints/${first.body.data.id}`, { token })).status).toBe(200);
  expect((await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${receiver.url}/hooks/again` } })).status).toBe(201);
});

test('test pings are limited per endpoint (WEBHOOK_TEST_RATE_LIMIT per 60 s): the refused one reaches nobody', async () => {
  await freshWindow();
  const token = await signIn();
  const endpoint = await call(gw.url, 'POST', '/webhook-endpoints', { token, body: { url: `${receiver.url}/pings` } });
  const path = `/webhook-endpoints/${endpoint.body.data.id}/test`;
  for (let i = 0; i < 2; i++) expect((await call(gw.url, 'POST', path, { token })).body.data.ok).toBe(true);
  const before = receiver.requests.length;
  const refused = await call(gw.url, 'POST', path, { token });
  expectRefused(refused, 2);
  // The ping budget refused, not the session's: its own reason and message, and none of the session budget's headers
  // (which still had room), as a verification limit's 429 carries none.
  expect(refused.body.error).toMatchObject({
    message: 'Too many test pings to this endpoint (at most 2 per 60 s); retry later',
    details: { reason: 'webhook_test', limit: 2 },
  });
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(refused.headers.get(header)).toBeNull();
  await new Promise((r) => setTimeout(r, 200));
  expect(receiver.requests.length).toBe(before);
});
