// Risk: a stolen or forgotten dashboard session moving money or handing out
// keys long after its user last proved who they are: a guarded change
// (transfer, withdrawal, payout request approval, approval thresholds, API key
// create and roll, invitation, owner reset of a
// second factor, webhook endpoint creation, URL change and secret roll) accepted from a session
// that neither signed in nor stepped up within STEP_UP_SECONDS, an
// Idempotency-Key replay handing such a session what a fresh one made, a 403
// stored as the key's answer (so the repeat after the step-up fails too), a
// step-up without the right code or password, or the API document not saying
// which routes need it.
import { generateSync } from 'otplib';
import { createKeyFor, createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { call, sessionSignedInAgo, stepUp } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
});
afterAll(async () => {
  await stack?.close();
});

/** STEP_UP_SECONDS (default 300) and a second. */
const STALE = 301;

let emails = 0;
async function workspaceWithOwner() {
  const { workspace } = await createWorkspaceWithKey(stack.env.db);
  const owner = await createUserFor(stack.env.db, workspace.id, `step-up-${++emails}@example.com`);
  return { workspaceId: workspace.id, owner };
}

function expectStepUpRequired(res: { status: number; body: any }, stepUpWith: 'code' | 'password' = 'password') {
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('insufficient_scope');
  expect(res.body.error.details).toEqual({ reason: 'step_up_required', step_up_with: stepUpWith });
}

const transferBody = { currency: 'NGN', amount: '10', account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' };

test('each guarded change refuses a session signed in more than STEP_UP_SECONDS ago, with the exact error, and answers after a step-up (same token)', async () => {
  const { workspaceId, owner } = await workspaceWithOwner();
  await fund(stack.env.db, workspaceId, 'NGN', '1000');
  // What the guarded routes act on, made by a fresh session.
  const fresh = await sessionSignedInAgo(stack, owner, 0);
  const beneficiary = await call(stack.url, 'POST', '/beneficiaries', {
    token: fresh,
    body: { account_number: '0987654321', bank_code: '058', currency: 'NGN' },
  });
  expect(beneficiary.status).toBe(201);
  const key = await call(stack.url, 'POST', '/api-keys', { token: fresh, body: { name: 'k', scopes: ['read'] } });
  expect(key.status).toBe(201);
  rememberSecret(key.body.data.key);
  const endpoint = await call(stack.url, 'POST', '/webhook-endpoints', { token: fresh, body: { url: 'http://127.0.0.1:9/hook' } });
  expect(endpoint.status).toBe(201);
  const member = await createUserFor(stack.env.db, workspaceId, `step-up-member-${++emails}@example.com`);
  await stack.env.db.dashboardUser.update({ where: { id: member.id }, data: { role: 'member' } });

  const guarded: Array<{ name: string; method: string; path: string; body?: unknown; idempotencyKey?: string; ok: number }> = [
    { name: 'transfer', method: 'POST', path: '/transfers', body: transferBody, idempotencyKey: 'transfer-1', ok: 201 },
    {
      name: 'withdrawal',
      method: 'POST',
      path: '/withdrawals',
      body: { currency: 'NGN', amount: '5', beneficiary_id: beneficiary.body.data.id },
      idempotencyKey: 'withdrawal-1',
      ok: 201,
    },
    { name: 'API key create', method: 'POST', path: '/api-keys', body: { name: 'new', scopes: ['read'] }, ok: 201 },
    { name: 'API key roll', method: 'POST', path: `/api-keys/${key.body.data.id}/roll`, body: { grace_seconds: 0 }, ok: 201 },
    { name: 'invitation', method: 'POST', path: '/users', body: { email: `invited-${emails}@example.com`, role: 'member' }, ok: 201 },
    { name: 'webhook endpoint create', method: 'POST', path: '/webhook-endpoints', body: { url: 'http://127.0.0.1:9/new' }, ok: 201 },
    { name: 'webhook URL change', method: 'PUT', path: `/webhook-endpoints/${endpoint.body.data.id}`, body: { url: 'http://127.0.0.1:9/other' }, ok: 200 },
    { name: 'webhook secret roll', method: 'POST', path: `/webhook-endpoints/${endpoint.body.data.id}/roll-secret`, body: { grace_seconds: 60 }, ok: 201 },
    { name: 'second factor reset', method: 'DELETE', path: `/users/${member.id}/mfa`, ok: 200 },
  ];
  const stale = await sessionSignedInAgo(stack, owner, STALE);
  const send = (route: (typeof guarded)[number], token: string) =>
    call(stack.url, route.method, route.path, { token, body: route.body, headers: route.idempotencyKey ? { 'Idempotency-Key': route.idempotencyKey } : {} });
  for (const route of guarded) {
    const refused = await send(route, stale);
    expectStepUpRequired(refused);
    expect([route.name, refused.body.error.message]).toEqual([route.name, expect.stringMatching(/POST \/auth\/step-up/)]);
  }
  // Nothing happened.
  const readKey = await createKeyFor(stack.env.db, workspaceId, 'live', ['read']);
  expect((await call(stack.url, 'GET', '/v1/transactions?type=debit', { token: readKey })).body.data).toEqual([]);

  const steppedUp = await stepUp(stack, stale, { password: owner.password });
  expect(new Date(steppedUp.body.data.stepped_up_until).getTime()).toBeGreaterThan(Date.now() + 290_000);
  for (const route of guarded) {
    const res = await send(route, stale);
    expect([route.name, res.status]).toEqual([route.name, route.ok]);
    if (res.body.data?.key) rememberSecret(res.body.data.key);
    if (res.body.data?.one_time_password) rememberSecret(res.body.data.one_time_password);
  }
});

test('a stale session still reads, and makes the changes that are not guarded (a webhook endpoint switched on or off, its events)', async () => {
  const { owner } = await workspaceWithOwner();
  const fresh = await sessionSignedInAgo(stack, owner, 0);
  const endpoint = await call(stack.url, 'POST', '/webhook-endpoints', { token: fresh, body: { url: 'http://127.0.0.1:9/hook' } });
  const stale = await sessionSignedInAgo(stack, owner, STALE);
  expect((await call(stack.url, 'GET', '/balances', { token: stale })).status).toBe(200);
  expect((await call(stack.url, 'GET', '/api-keys', { token: stale })).status).toBe(200);
  const update = await call(stack.url, 'PUT', `/webhook-endpoints/${endpoint.body.data.id}`, { token: stale, body: { active: false, events: ['ping'] } });
  expect(update.status).toBe(200);
  // A session that signed in within STEP_UP_SECONDS needs no step-up.
  const recent = await sessionSignedInAgo(stack, owner, 250);
  expect((await call(stack.url, 'POST', '/api-keys', { token: recent, body: { name: 'recent', scopes: ['read'] } })).status).toBe(201);
});

test('the refused request, repeated after the step-up with the same Idempotency-Key, runs once; a stale session is never handed a stored answer', async () => {
  const { workspaceId, owner } = await workspaceWithOwner();
  await fund(stack.env.db, workspaceId, 'NGN', '100');
  const stale = await sessionSignedInAgo(stack, owner, STALE);
  const headers = { 'Idempotency-Key': 'repeat-after-step-up' };
  expectStepUpRequired(await call(stack.url, 'POST', '/transfers', { token: stale, body: transferBody, headers }));
  await stepUp(stack, stale, { password: owner.password });
  const sent = await call(stack.url, 'POST', '/transfers', { token: stale, body: transferBody, headers });
  expect(sent.status).toBe(201);
  const again = await call(stack.url, 'POST', '/transfers', { token: stale, body: transferBody, headers });
  expect(again.body.data.reference).toBe(sent.body.data.reference);

  // A key made by a fresh session, asked for again by another session of the same user that has not stepped up: 403, not the stored key.
  const keyHeaders = { 'Idempotency-Key': 'key-replay' };
  const body = { name: 'replayed', scopes: ['read'] };
  const made = await call(stack.url, 'POST', '/api-keys', { token: await sessionSignedInAgo(stack, owner, 0), body, headers: keyHeaders });
  expect(made.status).toBe(201);
  rememberSecret(made.body.data.key);
  const replay = await call(stack.url, 'POST', '/api-keys', { token: await sessionSignedInAgo(stack, owner, STALE), body, headers: keyHeaders });
  expectStepUpRequired(replay);
  expect(JSON.stringify(replay.body)).not.toContain(made.body.data.key);
});

test('a user without a second factor steps up with their password (a wrong one is refused and counted); one with a factor, with a code', async () => {
  const { owner } = await workspaceWithOwner();
  const stale = await sessionSignedInAgo(stack, owner, STALE);
  const wrong = await call(stack.url, 'POST', '/auth/step-up', { token: stale, body: { password: 'not the password' } });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error.details).toEqual({ field: 'password' });
  const withCode = await call(stack.url, 'POST', '/auth/step-up', { token: stale, body: { code: '123456' } });
  expect(withCode.status).toBe(400);
  expect(withCode.body.error.details).toEqual({ field: 'password' });
  expectStepUpRequired(await call(stack.url, 'POST', '/api-keys', { token: stale, body: { name: 'x', scopes: ['read'] } }));
  // The wrong password counted as a failed sign-in of the email.
  expect(await stack.env.redis.get(`${stack.env.config.REDIS_KEY_PREFIX}login-email:${owner.email}`)).toBe('1');

  // Now with a second factor: the stale session must send a code, not the password.
  const fresh = await sessionSignedInAgo(stack, owner, 0);
  const { secret } = (await call(stack.url, 'POST', '/auth/mfa/totp', { token: fresh })).body.data;
  rememberSecret(secret);
  const now = Math.floor(Date.now() / 1000);
  const confirmed = await call(stack.url, 'POST', '/auth/mfa/totp/confirm', { token: fresh, body: { code: generateSync({ secret, epoch: now }) } });
  confirmed.body.data.recovery_codes.forEach(rememberSecret);
  const staleWithFactor = await sessionSignedInAgo(stack, owner, STALE);
  expectStepUpRequired(await call(stack.url, 'POST', '/api-keys', { token: staleWithFactor, body: { name: 'x', scopes: ['read'] } }), 'code');
  const byPassword = await call(stack.url, 'POST', '/auth/step-up', { token: staleWithFactor, body: { password: owner.password } });
  expect(byPassword.status).toBe(400);
  expect(byPassword.body.error.details).toEqual({ field: 'code' });
  await stepUp(stack, staleWithFactor, { code: generateSync({ secret, epoch: now + 30 }) });
  const made = await call(stack.url, 'POST', '/api-keys', { token: staleWithFactor, body: { name: 'after code', scopes: ['read'] } });
  expect(made.status).toBe(201);
  rememberSecret(made.body.data.key);
  // The step-up marks that session only.
  expectStepUpRequired(
    await call(stack.url, 'POST', '/api-keys', { token: await sessionSignedInAgo(stack, owner, STALE), body: { name: 'y', scopes: ['read'] } }),
    'code',
  );
});

test('a member is told about the role before any step-up; answers that carry a secret are not cached', async () => {
  const { workspaceId } = await workspaceWithOwner();
  const member = await createUserFor(stack.env.db, workspaceId, `member-${++emails}@example.com`);
  await stack.env.db.dashboardUser.update({ where: { id: member.id }, data: { role: 'member' } });
  const refused = await call(stack.url, 'POST', '/users', {
    token: await sessionSignedInAgo(stack, member, STALE),
    body: { email: 'x@example.com', role: 'member' },
  });
  expect(refused.status).toBe(403);
  expect(refused.body.error.details).toEqual({ required_role: 'admin' });
  const owner = (await stack.env.db.dashboardUser.findFirstOrThrow({ where: { workspaceId, role: 'owner' } })) as { id: number };
  const made = await call(stack.url, 'POST', '/api-keys', { token: await sessionSignedInAgo(stack, owner, 0), body: { name: 'cache', scopes: ['read'] } });
  rememberSecret(made.body.data.key);
  expect(made.headers.get('cache-control')).toBe('no-store');
});

test('the API document marks exactly the guarded routes, and says how to step up', async () => {
  const doc = (await call(stack.url, 'GET', '/v1/openapi.json')).body;
  const marked: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation['x-cowrie-step-up'] !== undefined) {
        marked.push(`${method.toUpperCase()} ${path}${operation['x-cowrie-step-up'] === true ? '' : ` (${operation['x-cowrie-step-up']})`}`);
        expect(operation.description).toMatch(/step_up_required/);
        expect(Object.keys(operation.responses)).toContain('403');
      }
    }
  }
  expect(marked.sort()).toEqual(
    [
      'POST /transfers',
      'POST /withdrawals',
      'POST /api-keys',
      'POST /api-keys/{id}/roll',
      'POST /users',
      'PUT /users/{id}/role',
      'DELETE /users/{id}/mfa',
      'POST /webhook-endpoints',
      'PUT /webhook-endpoints/{id} (when the body has a url)',
      'POST /webhook-endpoints/{id}/roll-secret',
      'POST /payout-requests/{id}/approve',
      'PUT /workspace/settings',
    ].sort(),
  );
  expect(doc.paths['/auth/step-up'].post.requestBody).toBeDefined();
});
