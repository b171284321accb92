// Risk: a dashboard action that leaves no row in the audit trail (or a row
// that does not say who, from where, in which request), a trail that a member,
// an API key or another workspace can read, filters or pages that drop rows
// (or keep others: an actor's `%` or `_` read as a LIKE wildcard, a `\` as
// its escape and answered 500), and a row that keeps a secret (a password, a key, a one-time password, a
// webhook secret: the cleanup's secrets scan reads the whole database).
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { generateSync } from 'otplib';
import { createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' });
});
afterAll(async () => {
  await stack?.close();
});

const USER_AGENT = 'audit-test/1.0';
type Res = Awaited<ReturnType<typeof call>>;

/** A call as a browser would make it: with a user agent; the answer's request id comes back as X-Request-Id. */
const act = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) =>
  call(stack.url, method, path, { ...opts, headers: { 'user-agent': USER_AGENT, ...(opts.headers ?? {}) } });
const requestIdOf = (res: Res) => res.headers.get('x-request-id');

const signIn = async (email: string, password: string) => {
  const res = await act('POST', '/auth/login', { body: { email, password } });
  expect(res.status).toBe(200);
  return { token: res.body.data.token as string, res };
};

/** A business with an owner (email and password known) signed in. */
async function business(name: string) {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db, { name });
  const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
  const owner = await createUserFor(stack.env.db, workspace.id, email);
  const { token } = await signIn(email, owner.password);
  return { workspace, key, owner, token };
}

/** Every row of the trail the token's session may list, newest first. */
async function trail(token: string, query = '') {
  const rows: Array<Record<string, any>> = [];
  let cursor: string | null = null;
  do {
    const res: Res = await call(stack.url, 'GET', `/audit-events?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(res.status).toBe(200);
    rows.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return rows;
}

test('each action of the dashboard is one row: who, on what, from which address and program, in which request', async () => {
  const a = await business('Audit A');
  const auth = { token: a.token };
  const done: Array<{ action: string; res: Res; object?: string | number; livemode?: boolean; details?: Record<string, unknown> }> = [];
  const expectOk = (res: Res, status: number) => {
    expect([res.status, res.body?.error]).toEqual([status, undefined]);
    return res;
  };

  // Sign-in: a wrong password (the email tried is kept), then the right one.
  rememberSecret('not the right password');
  const failed = await act('POST', '/auth/login', { body: { email: a.owner.email, password: 'not the right password' } });
  expect(failed.status).toBe(401);
  done.push({ action: 'user.sign_in_failed', res: failed, object: a.owner.id, details: { email: a.owner.email } });
  const { token, res: signedIn } = await signIn(a.owner.email, a.owner.password);
  done.push({ action: 'user.signed_in', res: signedIn, object: a.owner.id });
  auth.token = token;

  // API keys, on the test side: livemode false.
  const testSide = { 'Cowrie-Mode': 'test' };
  const created = expectOk(await act('POST', '/api-keys', { ...auth, headers: testSide, body: { name: 'CI', scopes: ['read'] } }), 201);
  rememberSecret(created.body.data.key);
  done.push({
    action: 'api_key.created',
    res: created,
    object: created.body.data.id,
    livemode: false,
    details: { prefix: created.body.data.prefix, name: 'CI', scopes: ['read'] },
  });
  const rolled = expectOk(await act('POST', `/api-keys/${created.body.data.id}/roll`, { ...auth, headers: testSide, body: { grace_seconds: 60 } }), 201);
  rememberSecret(rolled.body.data.key);
  done.push({
    action: 'api_key.rolled',
    res: rolled,
    object: created.body.data.id,
    livemode: false,
    details: {
      prefix: created.body.data.prefix,
      new_key_id: rolled.body.data.id,
      new_prefix: rolled.body.data.prefix,
      old_key_stops_at: rolled.body.data.previous.expires_at,
    },
  });
  const revoked = expectOk(await act('DELETE', `/api-keys/${rolled.body.data.id}`, { ...auth, headers: testSide }), 200);
  done.push({ action: 'api_key.revoked', res: revoked, object: rolled.body.data.id, livemode: false, details: { prefix: rolled.body.data.prefix } });

  // The team: an invitation, its first sign-in and password, a removal.
  const invited = expectOk(await act('POST', '/users', { ...auth, body: { email: 'new.admin@example.com', role: 'admin' } }), 201);
  const { user, one_time_password } = invited.body.data;
  rememberSecret(one_time_password);
  done.push({ action: 'user.invited', res: invited, object: user.id, details: { email: 'new.admin@example.com', role: 'admin' } });
  const first = await signIn(user.email, one_time_password);
  rememberSecret('the new admin chose this');
  const changed = expectOk(
    await act('POST', '/auth/password', { token: first.token, body: { current_password: one_time_password, new_password: 'the new admin chose this' } }),
    200,
  );
  const removed = expectOk(await act('DELETE', `/users/${user.id}`, auth), 200);
  done.push({ action: 'user.removed', res: removed, object: user.id, details: { email: 'new.admin@example.com', role: 'admin' } });

  // Webhook endpoints: add, change, roll the secret, recover, resend a delivery, delete.
  const url = 'http://127.0.0.1:9/audit-hook';
  const endpoint = expectOk(await act('POST', '/webhook-endpoints', { ...auth, body: { url, events: ['transfer.completed'] } }), 201);
  const endpointId = endpoint.body.data.id as number;
  done.push({ action: 'webhook_endpoint.created', res: endpoint, object: endpointId, details: { url, events: ['transfer.completed'] } });
  const updated = expectOk(await act('PUT', `/webhook-endpoints/${endpointId}`, { ...auth, body: { active: false } }), 200);
  done.push({ action: 'webhook_endpoint.updated', res: updated, object: endpointId, details: { active: false } });
  expectOk(await act('PUT', `/webhook-endpoints/${endpointId}`, { ...auth, body: { active: true } }), 200);
  const secretRolled = expectOk(
    await act('POST', `/webhook-endpoints/${endpointId}/roll-secret`, { ...auth, body: { grace_seconds: 0 }, headers: { 'Idempotency-Key': 'roll-audit' } }),
    201,
  );
  done.push({ action: 'webhook_endpoint.secret_rolled', res: secretRolled, object: endpointId, details: { grace_seconds: 0 } });
  const since = new Date(Date.now() - 3600_000).toISOString();
  const recovered = expectOk(
    await act('POST', `/webhook-endpoints/${endpointId}/recover`, { ...auth, body: { since }, headers: { 'Idempotency-Key': 'recover-audit' } }),
    202,
  );
  done.push({ action: 'webhook_endpoint.recovered', res: recovered, object: endpointId, details: { since, queued: 0, has_more: false } });
  const deliveryId = randomUUID();
  const delivered = await stack.env.db.webhookDelivery.create({
    data: {
      deliveryId,
      workspaceId: a.workspace.id,
      endpointId,
      event: 'transfer.completed',
      payload: { id: deliveryId, event: 'transfer.completed', created_at: new Date().toISOString(), data: {} },
      statusCode: 500,
      attempts: 3,
      ok: 0,
      completedAt: new Date(),
    },
  });
  const resent = expectOk(await act('POST', `/webhook-deliveries/${delivered.id}/resend`, { ...auth, headers: { 'Idempotency-Key': 'resend-audit' } }), 201);
  done.push({
    action: 'webhook_delivery.resent',
    res: resent,
    object: resent.body.data.id,
    details: { delivery_id: deliveryId, dispatch: 1, event: 'transfer.completed', endpoint_id: endpointId },
  });
  const deleted = expectOk(await act('DELETE', `/webhook-endpoints/${endpointId}`, auth), 200);
  done.push({ action: 'webhook_endpoint.deleted', res: deleted, object: endpointId });

  // Money sent from the dashboard: a transfer and a withdrawal; a replayed click is no second row.
  await fund(stack.env.db, a.workspace.id, 'NGN', '500');
  const transferBody = { currency: 'NGN', amount: '12.5', account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' };
  const transfer = expectOk(await act('POST', '/transfers', { ...auth, body: transferBody, headers: { 'Idempotency-Key': 'audit-transfer' } }), 201);
  expectOk(await act('POST', '/transfers', { ...auth, body: transferBody, headers: { 'Idempotency-Key': 'audit-transfer' } }), 201);
  done.push({
    action: 'payout.sent',
    res: transfer,
    object: transfer.body.data.id,
    details: {
      kind: 'transfer',
      reference: transfer.body.data.reference,
      currency: 'NGN',
      amount: '12.500000',
      counterparty_account: '0123456789',
      counterparty_bank: transfer.body.data.counterpartyBank,
    },
  });
  const beneficiary = expectOk(
    await act('POST', '/beneficiaries', {
      ...auth,
      body: { account_number: '0123456780', bank_code: '058', currency: 'NGN' },
      headers: { 'Idempotency-Key': 'b-1' },
    }),
    201,
  );
  done.push({
    action: 'beneficiary.created',
    res: beneficiary,
    object: beneficiary.body.data.id,
    details: { name: beneficiary.body.data.name, account_number: '0123456780', bank_code: '058', currency: 'NGN' },
  });
  const withdrawal = expectOk(
    await act('POST', '/withdrawals', {
      ...auth,
      body: { currency: 'NGN', amount: 20, beneficiary_id: beneficiary.body.data.id },
      headers: { 'Idempotency-Key': 'audit-withdrawal' },
    }),
    201,
  );
  done.push({
    action: 'payout.sent',
    res: withdrawal,
    object: withdrawal.body.data.id,
    details: {
      kind: 'withdrawal',
      reference: withdrawal.body.data.reference,
      currency: 'NGN',
      amount: '20.000000',
      counterparty_account: '0123456780',
      counterparty_bank: withdrawal.body.data.counterpartyBank,
    },
  });

  const unsaved = expectOk(await act('DELETE', `/beneficiaries/${beneficiary.body.data.id}`, auth), 200);
  done.push({
    action: 'beneficiary.removed',
    res: unsaved,
    object: beneficiary.body.data.id,
    details: { name: beneficiary.body.data.name, account_number: '0123456780', bank_code: '058', currency: 'NGN' },
  });

  const signedOut = expectOk(await act('POST', '/auth/logout', auth), 200);
  done.push({ action: 'user.signed_out', res: signedOut, object: a.owner.id });

  const { token: later } = await signIn(a.owner.email, a.owner.password);
  const rows = await trail(later);
  const byRequest = new Map(rows.map((row) => [row.request_id, row]));
  for (const step of done) {
    const row = byRequest.get(requestIdOf(step.res));
    expect([step.action, row?.action]).toEqual([step.action, step.action]);
    expect(row).toMatchObject({
      workspace_id: a.workspace.id,
      livemode: step.livemode ?? true,
      object: { id: step.object === undefined ? null : String(step.object) },
      client_address: expect.stringMatching(/127\.0\.0\.1$/),
      user_agent: USER_AGENT,
      details: step.details ?? {},
    });
    const actor =
      step.action === 'user.sign_in_failed'
        ? { type: 'anonymous', user_id: null, email: null }
        : { type: 'user', user_id: a.owner.id, email: a.owner.email, api_key_prefix: null, operator: null };
    expect([step.action, row!.actor]).toEqual([step.action, expect.objectContaining(actor)]);
  }
  // The invited admin's own sign-in and password change are theirs.
  expect(rows.find((r) => r.request_id === requestIdOf(first.res))).toMatchObject({ action: 'user.signed_in', actor: { user_id: user.id } });
  expect(rows.find((r) => r.request_id === requestIdOf(changed))).toMatchObject({ action: 'user.password_changed', actor: { email: user.email } });
  // One row per action: the replayed transfer, reads and refusals added none.
  expect(rows.filter((r) => r.action === 'payout.sent')).toHaveLength(2);
  expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
});

test("the second factor is in the trail: enrolment, a wrong code and a recovery code at sign-in, a recovery code at step-up, turning it off, an owner's reset", async () => {
  const b = await business('Audit MFA');
  const email = `admin-${randomUUID().slice(0, 8)}@example.com`;
  const admin = await createUserFor(stack.env.db, b.workspace.id, email);
  await stack.env.db.dashboardUser.update({ where: { id: admin.id }, data: { role: 'admin' } });
  const { token } = await signIn(email, admin.password);
  /** The TOTP code of the step `steps` from now. */
  const totp = (secret: string, steps = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
  const enrol = async (as: string) => {
    const secret = (await act('POST', '/auth/mfa/totp', { token: as })).body.data.secret as string;
    rememberSecret(secret);
    const confirmed = await act('POST', '/auth/mfa/totp/confirm', { token: as, body: { code: totp(secret) } });
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.data.recovery_codes as string[];
    codes.forEach(rememberSecret);
    return { secret, codes, confirmed };
  };

  const first = await enrol(token);
  const challenge = (await act('POST', '/auth/login', { body: { email, password: admin.password } })).body.data.challenge as string;
  const wrong = await act('POST', '/auth/login/mfa', { body: { challenge, code: 'aaaa-bbbb-cccc-dddd' } });
  expect(wrong.status).toBe(401);
  const byRecovery = await act('POST', '/auth/login/mfa', { body: { challenge, code: first.codes[0] } });
  expect(byRecovery.status).toBe(200);
  const session = byRecovery.body.data.token as string;
  const steppedUp = await act('POST', '/auth/step-up', { token: session, body: { code: first.codes[1] } });
  expect(steppedUp.status).toBe(200);
  const off = await act('POST', '/auth/mfa/totp/disable', { token: session, body: { code: totp(first.secret, 1) } });
  expect(off.status).toBe(200);
  await enrol(session);
  const reset = await act('DELETE', `/users/${admin.id}/mfa`, { token: b.token });
  expect(reset.status).toBe(200);

  const rows = await trail(b.token, '');
  const of = (res: Res) => rows.filter((r) => r.request_id === requestIdOf(res)).map((r) => [r.action, r.object, r.details, r.actor.type, r.actor.user_id]);
  const asAdmin = (action: string, details: Record<string, unknown> = {}) => [action, { type: 'user', id: String(admin.id) }, details, 'user', admin.id];
  expect(of(first.confirmed)).toEqual([asAdmin('user.mfa_enrolled', { method: 'totp' })]);
  expect(of(wrong)).toEqual([['user.sign_in_failed', { type: 'user', id: String(admin.id) }, { email }, 'anonymous', null]]);
  // Signed in at the code step (not at the password step), with the recovery code used and the nine left.
  expect(of(byRecovery)).toEqual([asAdmin('user.signed_in'), asAdmin('user.recovery_code_used', { remaining: 9 })]);
  expect(of(steppedUp)).toEqual([asAdmin('user.recovery_code_used', { remaining: 8 })]);
  expect(of(off)).toEqual([asAdmin('user.mfa_disabled', { method: 'totp' })]);
  expect(of(reset)).toEqual([['user.mfa_reset', { type: 'user', id: String(admin.id) }, { email, had_second_factor: true }, 'user', b.owner.id]]);
  // The password step that answered a challenge signed no one in.
  expect(rows.filter((r) => r.action === 'user.signed_in' && r.actor.user_id === admin.id)).toHaveLength(2);
  for (const row of rows.filter((r) => r.action.startsWith('user.mfa') || r.action === 'user.recovery_code_used')) {
    expect(row).toMatchObject({ workspace_id: b.workspace.id, livemode: true, user_agent: USER_AGENT });
  }
});

test('owners and admins read the trail (list and CSV); a member is 403, an API key or no session 401; one business only, whatever the mode', async () => {
  const a = await business('Readers A');
  const b = await business('Readers B');
  const invite = async (role: 'admin' | 'member') => {
    const res = await call(stack.url, 'POST', '/users', { token: a.token, body: { email: `${role}-${randomUUID().slice(0, 6)}@example.com`, role } });
    rememberSecret(res.body.data.one_time_password);
    const first = await signIn(res.body.data.user.email, res.body.data.one_time_password);
    const password = `${role} passphrase of their own`;
    rememberSecret(password);
    const changed = await call(stack.url, 'POST', '/auth/password', {
      token: first.token,
      body: { current_password: res.body.data.one_time_password, new_password: password },
    });
    return changed.body.data.token as string;
  };
  const admin = await invite('admin');
  const member = await invite('member');

  for (const path of ['/audit-events', '/audit-events/export']) {
    expect([path, (await call(stack.url, 'GET', path, { token: a.token })).status]).toEqual([path, 200]);
    expect([path, (await call(stack.url, 'GET', path, { token: admin })).status]).toEqual([path, 200]);
    const refused = await call(stack.url, 'GET', path, { token: member });
    expect([path, refused.status, refused.body.error.code, refused.body.error.details]).toEqual([path, 403, 'insufficient_scope', { required_role: 'admin' }]);
    expect([path, (await call(stack.url, 'GET', path, { token: a.key })).status]).toEqual([path, 401]);
    expect([path, (await call(stack.url, 'GET', path)).status]).toEqual([path, 401]);
  }

  // Each business sees its own rows only; a session in test mode sees the same trail (both sides, each row says which).
  const mine = await trail(a.token);
  const theirs = await trail(b.token);
  expect(mine.every((r) => r.workspace_id === a.workspace.id)).toBe(true);
  expect(theirs.every((r) => r.workspace_id === b.workspace.id)).toBe(true);
  expect(theirs.map((r) => r.action)).toEqual(['user.signed_in']);
  const inTestMode = await call(stack.url, 'GET', '/audit-events?limit=100', { token: a.token, headers: { 'Cowrie-Mode': 'test' } });
  expect(inTestMode.body.data.map((r: { id: number }) => r.id)).toEqual(mine.map((r) => r.id));
  const theirCsv = await fetch(`${stack.url}/audit-events/export`, { headers: { authorization: `Bearer ${b.token}` } }).then((r) => r.text());
  expect(theirCsv).not.toContain(a.owner.email);
});

test('filters, pages and the CSV download over HTTP; a bad filter is a 400 naming it', async () => {
  const a = await business('Filters');
  for (let i = 0; i < 4; i++) await signIn(a.owner.email, a.owner.password);
  rememberSecret('wrong password here');
  await act('POST', '/auth/login', { body: { email: a.owner.email, password: 'wrong password here' }, headers: { 'user-agent': '=cmd|calc' } });
  // A password typed in the email field is not an email: it is never kept.
  rememberSecret('my-password-in-the-email-field');
  expect((await act('POST', '/auth/login', { body: { email: 'my-password-in-the-email-field', password: 'x' } })).status).toBe(401);

  const signIns = await trail(a.token, '&action=user.signed_in');
  expect(signIns).toHaveLength(5);
  expect(await trail(a.token, `&actor=${encodeURIComponent(a.owner.email.toUpperCase())}`)).toHaveLength(5);
  expect(await trail(a.token, `&actor=${a.owner.id}`)).toHaveLength(5);
  expect(await trail(a.token, '&action=user.sign_in_failed')).toHaveLength(1);
  const oldest = signIns.at(-1)!;
  expect(await trail(a.token, `&action=user.signed_in&to=${encodeURIComponent(oldest.created_at)}`)).toEqual([]);
  expect((await trail(a.token, `&action=user.signed_in&from=${encodeURIComponent(oldest.created_at)}`)).map((r) => r.id)).toEqual(signIns.map((r) => r.id));

  const page = await call(stack.url, 'GET', '/audit-events?limit=2', { token: a.token });
  expect(page.body.data).toHaveLength(2);
  const next = await call(stack.url, 'GET', `/audit-events?limit=2&cursor=${encodeURIComponent(page.body.meta.next_cursor)}`, { token: a.token });
  expect(next.body.data[0].id).toBeLessThan(page.body.data[1].id);

  for (const [query, field] of [
    ['action=user.deleted_everything', 'action'],
    ['from=yesterday', 'from'],
    ['limit=0', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
  ]) {
    const res = await call(stack.url, 'GET', `/audit-events?${query}`, { token: a.token });
    expect([query, res.status, res.body.error.code, res.body.error.details?.field]).toEqual([query, 400, 'invalid_request', field]);
  }

  const csv = await fetch(`${stack.url}/audit-events/export?action=user.sign_in_failed`, { headers: { authorization: `Bearer ${a.token}` } });
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-events-\d{4}-\d{2}-\d{2}\.csv"$/);
  const records = parse(await csv.text(), { columns: true }) as Array<Record<string, string>>;
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ action: 'user.sign_in_failed', actor_type: 'anonymous', user_agent: "'=cmd|calc", object_id: String(a.owner.id) });
  expect(JSON.parse(records[0]!.details!)).toEqual({ email: a.owner.email });
  expect(await stack.env.db.auditEvent.count({ where: { details: { path: ['email'], equals: 'my-password-in-the-email-field' } } })).toBe(0);
});

test("the actor filter is an exact match in any case: `%`, `_` and `\\` are themselves, never LIKE's wildcards or escape (list and CSV)", async () => {
  const a = await business('Actor wildcards');
  const operators = ['ops%1@host', 'ops_1@host', 'opsx1@host', 'ops\\1@host', 'ops\\\\@host', '%', '_', '\\'];
  await stack.env.db.auditEvent.createMany({
    data: operators.map((actor) => ({
      workspaceId: a.workspace.id,
      livemode: true,
      action: 'wallet.credited',
      actorType: 'operator',
      actor,
      objectType: 'wallet',
      objectId: '1',
      details: { currency: 'NGN', amount: '1.000000', reference: 'crd_x' },
    })),
  });
  const exportOf = async (actor: string) => {
    const res = await fetch(`${stack.url}/audit-events/export?actor=${encodeURIComponent(actor)}`, { headers: { authorization: `Bearer ${a.token}` } });
    return [res.status, (parse(await res.text(), { columns: true }) as Array<Record<string, string>>).map((r) => r.actor)];
  };
  for (const [actor, expected] of [
    ['%', ['%']],
    ['_', ['_']],
    ['\\', ['\\']],
    ['%\\', []],
    ['OPS%1@HOST', ['ops%1@host']],
    ['ops_1@host', ['ops_1@host']],
    ['ops\\1@host', ['ops\\1@host']],
    ['ops\\\\@host', ['ops\\\\@host']],
    ['ops%@host', []],
  ] as const) {
    const res = await call(stack.url, 'GET', `/audit-events?limit=100&actor=${encodeURIComponent(actor)}`, { token: a.token });
    expect([actor, res.status, res.body.data?.map((r: { actor: { operator: string } }) => r.actor.operator)]).toEqual([actor, 200, expected]);
    expect([actor, ...(await exportOf(actor))]).toEqual([actor, 200, expected]);
  }
});

test('a row that cannot be written: an action in its transaction is undone with it; one recorded after it still answers, and the failure is logged', async () => {
  const a = await business('Unrecorded');
  const key = await call(stack.url, 'POST', '/api-keys', { token: a.token, body: { name: 'Kept', scopes: ['read'] } });
  rememberSecret(key.body.data.key);
  // The database refuses these two actions' rows (a stand-in for a row that cannot be written).
  await stack.env.db.$executeRawUnsafe(`CREATE FUNCTION refuse_audit_rows() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW."action" IN ('api_key.revoked', 'webhook_endpoint.created') THEN RAISE EXCEPTION 'no audit row today'; END IF; RETURN NEW; END $$`);
  await stack.env.db.$executeRawUnsafe(`CREATE TRIGGER refuse_audit_rows BEFORE INSERT ON "AuditEvent" FOR EACH ROW EXECUTE FUNCTION refuse_audit_rows()`);
  try {
    const revoke = await call(stack.url, 'DELETE', `/api-keys/${key.body.data.id}`, { token: a.token });
    expect(revoke.status).not.toBe(200);
    expect(await stack.env.db.apiKey.findUniqueOrThrow({ where: { id: key.body.data.id } })).toMatchObject({ revokedAt: null });

    const created = await call(stack.url, 'POST', '/webhook-endpoints', { token: a.token, body: { url: 'http://127.0.0.1:9/unrecorded' } });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    const logged = stack.env.logLines.map((line) => JSON.parse(line)).find((line) => line.msg === 'audit event not recorded');
    expect(logged).toMatchObject({ action: 'webhook_endpoint.created', requestId: created.headers.get('x-request-id') });
  } finally {
    await stack.env.db.$executeRawUnsafe('DROP TRIGGER refuse_audit_rows ON "AuditEvent"');
    await stack.env.db.$executeRawUnsafe('DROP FUNCTION refuse_audit_rows()');
  }
});
