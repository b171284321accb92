// Risk: the maker-checker on dashboard payouts failing open or sending twice:
// a payout above its currency's threshold sent without a second person (or
// at the threshold held back), an approval by the requester themself, by a
// member or without a step-up, two approvals at once (or a retried one)
// paying twice, a rejected or expired request still payable, a retry of the
// original request making a second request or a payout, money held while a
// request waits, the threshold changed by someone who is not an owner or
// without a trace, or /v1 payouts touched by any of it; an Idempotency-Key
// past its 24 hours skipping the approval, an approval tied to another payout
// its body idempotency_key names, or a request of a removed or demoted
// requester still payable.
import { auditWallet, findWallet } from '@cowrie/ledger';
import { createUserFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call, sessionSignedInAgo, stepUp } from '@cowrie/gateway/testing';
import { aDayLater, fund, startPayoutStack } from './payout-stack';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;
beforeAll(async () => {
  stack = await startPayoutStack();
});
afterAll(async () => {
  await stack?.close();
});

let emails = 0;
/** A workspace with two owners and an admin (fresh sessions), a member, and an API key; NGN funded. */
async function team(ngn = '1000') {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db, { name: `Approvals ${++emails}` });
  const user = async (role: 'owner' | 'admin' | 'member') => {
    const made = await createUserFor(stack.env.db, workspace.id, `${role}-${++emails}@approvals.test`);
    if (role !== 'owner') await stack.env.db.dashboardUser.update({ where: { id: made.id }, data: { role } });
    return { ...made, token: await sessionSignedInAgo(stack, made, 0) };
  };
  const [owner, otherOwner, admin, member] = [await user('owner'), await user('owner'), await user('admin'), await user('member')];
  if (ngn !== '0') await fund(stack.env.db, workspace.id, 'NGN', ngn);
  return { workspaceId: workspace.id, testWorkspaceId: workspace.test_workspace_id, apiKey: key, owner, otherOwner, admin, member };
}

const transfer = (amount: string, currency = 'NGN') => ({ currency, amount, account_number: '0123456789', bank_code: '058', account_name: 'Ada Obi' });
const send = (token: string, key: string, body: unknown, path = '/transfers', headers: Record<string, string> = {}) =>
  call(stack.url, 'POST', path, { token, body, headers: { 'Idempotency-Key': key, ...headers } });
const setThresholds = (token: string, thresholds: Record<string, string>, headers: Record<string, string> = {}) =>
  call(stack.url, 'PUT', '/workspace/settings', { token, body: { payout_approval_thresholds: thresholds }, headers });
const available = async (token: string, currency = 'NGN') =>
  ((await call(stack.url, 'GET', '/balances', { token })).body.data as Array<{ currency: string; available: string }>).find((b) => b.currency === currency)
    ?.available;
const debits = (workspaceId: number) => stack.env.db.ledgerTransaction.findMany({ where: { workspaceId, type: 'debit' }, orderBy: { id: 'asc' } });
const auditActions = async (workspaceId: number) =>
  (await stack.env.db.auditEvent.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } })).map((e) => ({
    action: e.action,
    actor: e.actor,
    objectId: e.objectId,
    livemode: e.livemode,
    details: e.details as Record<string, unknown>,
  }));

test('off by default: any amount is sent at once, and the settings say {}', async () => {
  const t = await team();
  expect((await call(stack.url, 'GET', '/workspace/settings', { token: t.member.token })).body.data).toEqual({ payout_approval_thresholds: {} });
  const sent = await send(t.owner.token, 'big-1', transfer('900'));
  expect(sent.status).toBe(201);
  expect(sent.body.data.status).toBe('completed');
  expect((await call(stack.url, 'GET', '/payout-requests', { token: t.owner.token })).body.data).toEqual([]);
});

test('the threshold: above it a payout request (202, nothing held), at or below it sent; per currency; per side; /v1 never waits', async () => {
  const t = await team();
  await fund(stack.env.db, t.workspaceId, 'EUR', '1000');
  expect((await setThresholds(t.owner.token, { NGN: '100' })).body.data).toEqual({ payout_approval_thresholds: { NGN: '100.000000' } });

  const equal = await send(t.admin.token, 'eq', transfer('100'));
  expect(equal.status).toBe(201);
  expect(equal.body.data.status).toBe('completed');
  const below = await send(t.admin.token, 'below', transfer('99.999999'));
  expect(below.status).toBe(201);
  expect(await available(t.owner.token)).toBe('800.000001');

  const above = await send(t.admin.token, 'above', transfer('100.000001'));
  expect(above.status).toBe(202);
  expect(above.body.data).toMatchObject({
    kind: 'transfer',
    status: 'pending',
    currency: 'NGN',
    amount: '100.000001',
    counterparty_name: 'Ada Obi',
    counterparty_account: '0123456789',
    requested_by: { user_id: t.admin.id, email: t.admin.email },
    decided_by: null,
    transaction: null,
  });
  const created = new Date(above.body.data.created_at).getTime();
  expect(new Date(above.body.data.expires_at).getTime() - created).toBe(24 * 3600 * 1000);
  // Nothing held, no ledger row: the balance is checked when it is approved.
  expect(await available(t.owner.token)).toBe('800.000001');
  expect(await debits(t.workspaceId)).toHaveLength(2);

  // Another currency has no threshold: any amount goes.
  const eur = await send(t.admin.token, 'eur', transfer('900', 'EUR'));
  expect(eur.status).toBe(201);
  // A withdrawal is held back the same way.
  const beneficiary = await call(stack.url, 'POST', '/beneficiaries', {
    token: t.admin.token,
    body: { account_number: '0987654321', bank_code: '058', currency: 'NGN' },
  });
  const withdrawal = await send(t.admin.token, 'wd', { currency: 'NGN', amount: '150', beneficiary_id: beneficiary.body.data.id }, '/withdrawals');
  expect(withdrawal.status).toBe(202);
  expect(withdrawal.body.data).toMatchObject({ kind: 'withdrawal', beneficiary_id: beneficiary.body.data.id, counterparty_account: '0987654321' });

  // The test side has settings of its own: none.
  const testSide = { 'Cowrie-Mode': 'test' };
  expect((await call(stack.url, 'GET', '/workspace/settings', { token: t.owner.token, headers: testSide })).body.data).toEqual({
    payout_approval_thresholds: {},
  });
  await fund(stack.env.db, t.testWorkspaceId, 'NGN', '1000');
  expect((await send(t.admin.token, 'test-side', transfer('500'), '/transfers', testSide)).status).toBe(201);

  // /v1 is unchanged: an API key's payout above the threshold is sent.
  const v1 = await call(stack.url, 'POST', '/v1/transfers', { token: t.apiKey, body: transfer('200'), headers: { 'Idempotency-Key': 'v1-big' } });
  expect(v1.status).toBe(201);
});

test('settings: owners only, with a step-up, validated, and each change in the audit trail with before and after', async () => {
  const t = await team();
  const refusedAdmin = await setThresholds(t.admin.token, { NGN: '1' });
  expect(refusedAdmin.status).toBe(403);
  expect(refusedAdmin.body.error.details).toEqual({ required_role: 'owner' });
  expect((await setThresholds(t.member.token, { NGN: '1' })).status).toBe(403);

  const stale = await sessionSignedInAgo(stack, t.owner, 301);
  const refusedStale = await setThresholds(stale, {});
  expect(refusedStale.status).toBe(403);
  expect(refusedStale.body.error.details).toEqual({ reason: 'step_up_required', step_up_with: 'password' });
  await stepUp(stack, stale, { password: t.owner.password });

  for (const [thresholds, message] of [
    [{ NGN: '-1' }, /^payout_approval_thresholds\.NGN must not be negative$/],
    [{ NGN: 'ten' }, /payout_approval_thresholds/],
    [{ XYZ: '10' }, /^payout_approval_thresholds has XYZ, which is not a payout currency code \(in capitals\)$/],
    [{ ngn: '10' }, /has ngn, which is not a payout currency code/],
  ] as const) {
    const bad = await setThresholds(stale, thresholds);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(message);
  }
  expect((await setThresholds(stale, { NGN: '50000.5', EUR: '0' })).body.data).toEqual({
    payout_approval_thresholds: { NGN: '50000.500000', EUR: '0.000000' },
  });
  expect((await setThresholds(stale, {})).body.data).toEqual({ payout_approval_thresholds: {} });
  expect((await setThresholds(stale, { NGN: '7' }, { 'Cowrie-Mode': 'test' })).status).toBe(200);

  const changes = (await auditActions(t.workspaceId)).filter((e) => e.action === 'workspace.settings_changed');
  expect(changes).toEqual([
    {
      action: 'workspace.settings_changed',
      actor: t.owner.email,
      objectId: String(t.workspaceId),
      livemode: true,
      details: {
        settings: ['payout_approval_thresholds'],
        payout_approval_thresholds: { before: {}, after: { NGN: '50000.500000', EUR: '0.000000' } },
      },
    },
    {
      action: 'workspace.settings_changed',
      actor: t.owner.email,
      objectId: String(t.workspaceId),
      livemode: true,
      details: {
        settings: ['payout_approval_thresholds'],
        payout_approval_thresholds: { before: { NGN: '50000.500000', EUR: '0.000000' }, after: {} },
      },
    },
    {
      action: 'workspace.settings_changed',
      actor: t.owner.email,
      objectId: String(t.testWorkspaceId),
      livemode: false,
      details: { settings: ['payout_approval_thresholds'], payout_approval_thresholds: { before: {}, after: { NGN: '7.000000' } } },
    },
  ]);
});

test('approval: never by its requester nor a member, only with a step-up; then sent once under the requester key, and every step audited', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '100' });
  const asked = await send(t.owner.token, 'pay-supplier', transfer('250'));
  expect(asked.status).toBe(202);
  const id = asked.body.data.id as number;
  const approve = (token: string, headers: Record<string, string> = {}) => call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token, headers });

  const own = await approve(t.owner.token);
  expect(own.status).toBe(403);
  expect(own.body.error).toMatchObject({ code: 'insufficient_scope', details: { reason: 'own_payout_request' } });
  expect(own.body.error.message).toMatch(/another owner or admin must approve it/);
  expect((await approve(t.member.token)).body.error.details).toEqual({ required_role: 'admin' });
  const staleAdmin = await sessionSignedInAgo(stack, t.admin, 301);
  const notSteppedUp = await approve(staleAdmin);
  expect(notSteppedUp.status).toBe(403);
  expect(notSteppedUp.body.error.details.reason).toBe('step_up_required');
  expect((await call(stack.url, 'GET', `/payout-requests/${id}`, { token: t.member.token })).body.data.status).toBe('pending');
  expect(await debits(t.workspaceId)).toEqual([]);

  await stepUp(stack, staleAdmin, { password: t.admin.password });
  const approved = await approve(staleAdmin, { 'Idempotency-Key': 'approve-1' });
  expect(approved.status).toBe(200);
  expect(approved.body.data).toMatchObject({
    status: 'approved',
    decided_by: { user_id: t.admin.id, email: t.admin.email },
    transaction: { status: 'completed' },
  });
  const [payout, ...others] = await debits(t.workspaceId);
  expect(others).toEqual([]);
  // The requester's Idempotency-Key, and the request they sent, are the payout's.
  expect(payout).toMatchObject({ id: approved.body.data.transaction.id, requestKey: 'pay-supplier', amount: expect.anything(), status: 'completed' });
  expect(payout!.requestHash).toBe((await stack.env.db.payoutRequest.findUniqueOrThrow({ where: { id } })).requestHash);
  expect(await available(t.owner.token)).toBe('750.000000');

  // Approving again: the approver's retry answers the same payout, anyone else is told it was decided; the money moved once.
  const replay = await approve(staleAdmin, { 'Idempotency-Key': 'approve-1' });
  expect(replay.body.data.transaction.id).toBe(payout!.id);
  const again = await approve(staleAdmin);
  expect(again.status).toBe(200);
  expect(again.body.data.transaction.id).toBe(payout!.id);
  const other = await approve(t.otherOwner.token);
  expect(other.status).toBe(400);
  expect(other.body.error.details).toEqual({ reason: 'payout_request_decided', status: 'approved' });
  expect(other.body.error.message).toBe(`This payout request was already approved by ${t.admin.email}`);
  // The requester's retry of the original payout answers the request (the stored answer), and once that is gone the request as it
  // is now, with its payout: no second request, no second payout.
  const replayed = await send(t.owner.token, 'pay-supplier', transfer('250'));
  expect(replayed.status).toBe(202);
  expect(replayed.body.data.id).toBe(id);
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  const retried = await send(t.owner.token, 'pay-supplier', transfer('250'));
  expect(retried.status).toBe(202);
  expect(retried.body.data).toMatchObject({ id, status: 'approved', transaction: { id: payout!.id } });
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('750.000000');

  const trail = (await auditActions(t.workspaceId)).filter((e) => e.action.startsWith('payout'));
  expect(trail).toEqual([
    {
      action: 'payout_request.created',
      actor: t.owner.email,
      objectId: String(id),
      livemode: true,
      details: {
        kind: 'transfer',
        currency: 'NGN',
        amount: '250.000000',
        threshold: '100.000000',
        counterparty_account: '0123456789',
        counterparty_bank: '058',
      },
    },
    {
      action: 'payout_request.approved',
      actor: t.admin.email,
      objectId: String(id),
      livemode: true,
      details: { currency: 'NGN', amount: '250.000000', requested_by: t.owner.email, reference: payout!.reference },
    },
    expect.objectContaining({ action: 'payout.sent', actor: t.admin.email, objectId: String(payout!.id) }),
  ]);
});

test('two approvals at once (two approvers, or one approver twice) send one payout; the ledger moves once', async () => {
  const t = await team('10000');
  await setThresholds(t.owner.token, { NGN: '10' });
  for (let round = 0; round < 5; round++) {
    const asked = await send(t.owner.token, `race-${round}`, transfer('100'));
    const path = `/payout-requests/${asked.body.data.id}/approve`;
    const answers = await Promise.all([
      call(stack.url, 'POST', path, { token: t.admin.token }),
      call(stack.url, 'POST', path, { token: t.otherOwner.token }),
      call(stack.url, 'POST', path, { token: t.admin.token }),
      call(stack.url, 'POST', path, { token: t.otherOwner.token }),
    ]);
    const ok = answers.filter((a) => a.status === 200);
    // The approver who won may be answered twice (its own repeat); the other approver is told it was decided.
    expect(new Set(ok.map((a) => a.body.data.decided_by.user_id)).size).toBe(1);
    expect(new Set(ok.map((a) => a.body.data.transaction.id)).size).toBe(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.reason).toBe('payout_request_decided');
    }
  }
  const rows = await debits(t.workspaceId);
  expect(rows.map((r) => r.requestKey).sort()).toEqual(['race-0', 'race-1', 'race-2', 'race-3', 'race-4']);
  expect(await available(t.owner.token)).toBe('9500.000000');
  // The wallet's balance and hold are what its entries say (the file's cleanup audits the whole ledger too).
  const wallet = (await findWallet(stack.env.db, t.workspaceId, 'NGN'))!;
  expect(await auditWallet(stack.env.db, wallet.id)).toMatchObject({ consistent: true });
});

test('rejection (with a reason; the requester may withdraw their own), and a decided request cannot be decided again', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '100' });
  const asked = await send(t.admin.token, 'reject-me', transfer('300'));
  const id = asked.body.data.id as number;
  expect((await call(stack.url, 'POST', `/payout-requests/${id}/reject`, { token: t.member.token, body: {} })).status).toBe(403);
  const rejected = await call(stack.url, 'POST', `/payout-requests/${id}/reject`, { token: t.owner.token, body: { reason: 'Wrong supplier' } });
  expect(rejected.status).toBe(200);
  expect(rejected.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Wrong supplier', decided_by: { user_id: t.owner.id }, transaction: null });
  const late = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.otherOwner.token });
  expect(late.status).toBe(400);
  expect(late.body.error.details).toEqual({ reason: 'payout_request_decided', status: 'rejected' });
  expect((await call(stack.url, 'POST', `/payout-requests/${id}/reject`, { token: t.otherOwner.token, body: {} })).status).toBe(400);
  // Its retry answers the request, rejected: nothing is sent.
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  expect((await send(t.admin.token, 'reject-me', transfer('300'))).body.data).toMatchObject({ id, status: 'rejected' });
  expect(await debits(t.workspaceId)).toEqual([]);

  const mine = await send(t.admin.token, 'withdrawn', transfer('300'));
  const withdrawn = await call(stack.url, 'POST', `/payout-requests/${mine.body.data.id}/reject`, { token: t.admin.token, body: {} });
  expect(withdrawn.body.data).toMatchObject({ status: 'rejected', rejection_reason: null, decided_by: { user_id: t.admin.id } });

  const trail = (await auditActions(t.workspaceId)).filter((e) => e.action === 'payout_request.rejected');
  expect(trail.map((e) => [e.actor, e.objectId, e.details])).toEqual([
    [t.owner.email, String(id), { currency: 'NGN', amount: '300.000000', requested_by: t.admin.email, reason: 'Wrong supplier' }],
    [t.admin.email, String(mine.body.data.id), { currency: 'NGN', amount: '300.000000', requested_by: t.admin.email, reason: null }],
  ]);
  // Another workspace never reaches them.
  const stranger = await team();
  expect((await call(stack.url, 'GET', `/payout-requests/${id}`, { token: stranger.owner.token })).status).toBe(404);
  expect((await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: stranger.admin.token })).status).toBe(404);
  expect((await call(stack.url, 'GET', '/payout-requests/abc', { token: t.owner.token })).status).toBe(404);
});

test('expiry: 24 hours after it was made a pending request reads as expired and can be neither approved nor rejected', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '100' });
  const asked = await send(t.admin.token, 'slow', transfer('300'));
  const id = asked.body.data.id as number;
  // Its 24 hours passed (the row's clock moved back rather than the test waiting a day).
  const past = new Date(Date.now() - 1000);
  await stack.env.db.payoutRequest.update({ where: { id }, data: { expiresAt: past, createdAt: new Date(past.getTime() - 24 * 3600 * 1000) } });
  expect((await call(stack.url, 'GET', `/payout-requests/${id}`, { token: t.owner.token })).body.data.status).toBe('expired');
  const approve = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.owner.token });
  expect(approve.status).toBe(400);
  expect(approve.body.error.details).toEqual({ reason: 'payout_request_expired', status: 'expired' });
  expect(approve.body.error.message).toMatch(/^This payout request expired at .*: ask for the payout again$/);
  expect((await call(stack.url, 'POST', `/payout-requests/${id}/reject`, { token: t.owner.token, body: {} })).body.error.details.reason).toBe(
    'payout_request_expired',
  );
  expect(await debits(t.workspaceId)).toEqual([]);
  const list = async (status: string) =>
    (await call(stack.url, 'GET', `/payout-requests?status=${status}`, { token: t.owner.token })).body.data.map((r: { id: number }) => r.id);
  expect(await list('expired')).toEqual([id]);
  expect(await list('pending')).toEqual([]);
});

test('the balance is checked at approval: short of money the request stays pending, and is approved once the wallet holds enough', async () => {
  const t = await team('50');
  await setThresholds(t.owner.token, { NGN: '10' });
  const asked = await send(t.admin.token, 'too-much', transfer('80'));
  expect(asked.status).toBe(202);
  const id = asked.body.data.id as number;
  const short = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.owner.token });
  expect(short.status).toBe(400);
  expect(short.body.error.message).toMatch(/^Exceeds balance: 50\.000000 NGN/);
  expect((await call(stack.url, 'GET', `/payout-requests/${id}`, { token: t.owner.token })).body.data).toMatchObject({ status: 'pending', decided_by: null });
  await fund(stack.env.db, t.workspaceId, 'NGN', '50');
  const approved = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.owner.token });
  expect(approved.status).toBe(200);
  expect(approved.body.data.transaction.status).toBe('completed');
  expect(await available(t.owner.token)).toBe('20.000000');
  expect((await auditActions(t.workspaceId)).filter((e) => e.action === 'payout_request.approved')).toHaveLength(1);
});

test("a retry of the original request finds its request even after the idempotency layer's record is gone, and whatever the threshold says now", async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '100' });
  const asked = await send(t.admin.token, 'keep-key', transfer('300'));
  expect(asked.status).toBe(202);
  const replayed = await send(t.admin.token, 'keep-key', transfer('300'));
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.data.id).toBe(asked.body.data.id);
  // The layer's record lapsed (24 h) and the approvals were turned off since: the key still finds the request, not a payout.
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  await setThresholds(t.owner.token, {});
  const retried = await send(t.admin.token, 'keep-key', transfer('300'));
  expect(retried.status).toBe(202);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
  expect(retried.body.data).toMatchObject({ id: asked.body.data.id, status: 'pending' });
  // The key with another body is a conflict.
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  expect((await send(t.admin.token, 'keep-key', transfer('301'))).status).toBe(409);
  expect(await debits(t.workspaceId)).toEqual([]);
  expect(await stack.env.db.payoutRequest.count({ where: { workspaceId: t.workspaceId } })).toBe(1);

  // A payout sent before the threshold was lowered is answered as that payout on a retry, never turned into a request.
  const sent = await send(t.admin.token, 'sent-first', transfer('300'));
  expect(sent.status).toBe(201);
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  await setThresholds(t.owner.token, { NGN: '100' });
  const again = await send(t.admin.token, 'sent-first', transfer('300'));
  expect(again.status).toBe(201);
  expect(again.body.data.reference).toBe(sent.body.data.reference);
});

test('the list: newest first, filtered by status, cursor paged', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '1' });
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) ids.push((await send(t.admin.token, `list-${i}`, transfer('5'))).body.data.id);
  await call(stack.url, 'POST', `/payout-requests/${ids[0]}/reject`, { token: t.owner.token, body: {} });
  const first = await call(stack.url, 'GET', '/payout-requests?limit=2', { token: t.member.token });
  expect(first.body.data.map((r: { id: number }) => r.id)).toEqual([ids[2], ids[1]]);
  const second = await call(stack.url, 'GET', `/payout-requests?limit=2&cursor=${first.body.meta.next_cursor}`, { token: t.member.token });
  expect(second.body.data.map((r: { id: number }) => r.id)).toEqual([ids[0]]);
  expect(second.body.meta.next_cursor).toBeNull();
  const pending = await call(stack.url, 'GET', '/payout-requests?status=pending', { token: t.member.token });
  expect(pending.body.data.map((r: { id: number }) => r.id)).toEqual([ids[2], ids[1]]);
  const rejected = await call(stack.url, 'GET', '/payout-requests?status=rejected', { token: t.member.token });
  expect(rejected.body.data.map((r: { id: number }) => r.id)).toEqual([ids[0]]);
  expect((await call(stack.url, 'GET', '/payout-requests?status=lost', { token: t.member.token })).status).toBe(400);
  // The test side has none of them.
  expect((await call(stack.url, 'GET', '/payout-requests', { token: t.member.token, headers: { 'Cowrie-Mode': 'test' } })).body.data).toEqual([]);
});

test('a payout the rail refuses at approval is answered as the payout routes answer it; approving again answers that payout, never a second', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '10' });
  const asked = await send(t.owner.token, 'rail-throws', { ...transfer('40'), account_number: '0000000002' });
  const path = `/payout-requests/${asked.body.data.id}/approve`;
  const thrown = await call(stack.url, 'POST', path, { token: t.admin.token });
  expect(thrown.status).toBe(502);
  expect(thrown.body.error.code).toBe('provider_error');
  expect(thrown.body.error.details).toMatchObject({ payout_request: asked.body.data.id, transaction: { status: 'failed' } });
  const again = await call(stack.url, 'POST', path, { token: t.admin.token });
  expect(again.status).toBe(200);
  expect(again.body.data).toMatchObject({ status: 'approved', transaction: { id: thrown.body.error.details.transaction.id, status: 'failed' } });
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('1000.000000');
});

test('an approval whose process died before the payout was opened is finished by its approver, once', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '10' });
  const asked = await send(t.owner.token, 'half-approved', transfer('40'));
  const id = asked.body.data.id as number;
  // What a crash between the approval's update and the payout's open leaves behind.
  await stack.env.db.payoutRequest.update({
    where: { id },
    data: { status: 'approved', decidedByUserId: t.admin.id, decidedByEmail: t.admin.email, decidedAt: new Date() },
  });
  const other = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.otherOwner.token });
  expect(other.status).toBe(400);
  const finished = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.admin.token });
  expect(finished.status).toBe(200);
  expect(finished.body.data).toMatchObject({ status: 'approved', transaction: { status: 'completed' } });
  expect((await debits(t.workspaceId)).map((d) => d.requestKey)).toEqual(['half-approved']);
  expect(await available(t.owner.token)).toBe('960.000000');
});

test('an approval whose process died after its payout was opened, and before it was linked, finished a day later: linked to that payout, never a second one', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '10' });
  const asked = await send(t.owner.token, 'opened-not-linked', transfer('40'));
  const id = asked.body.data.id as number;
  const path = `/payout-requests/${id}/approve`;
  const approved = await call(stack.url, 'POST', path, { token: t.admin.token });
  expect(approved.status).toBe(200);
  const paid = approved.body.data.transaction.id as number;
  // What a crash between the open and its link leaves behind, then a day passing.
  await stack.env.db.payoutRequest.update({ where: { id }, data: { transactionId: null } });
  await aDayLater(stack.env.db, t.workspaceId, 'opened-not-linked');
  const finished = await call(stack.url, 'POST', path, { token: t.admin.token });
  expect(finished.status).toBe(200);
  expect(finished.body.data).toMatchObject({ status: 'approved', transaction: { id: paid, status: 'completed' } });
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('960.000000');
});

test('a key whose payout is older than 24 hours no longer answers for it: above the threshold the new request waits for an approval', async () => {
  const t = await team('100000');
  await setThresholds(t.owner.token, { NGN: '1000' });
  const first = await send(t.admin.token, 'reused-key', transfer('100'));
  expect(first.status).toBe(201);
  await aDayLater(stack.env.db, t.workspaceId, 'reused-key');
  // The key is free again (the ledger would open a new payout with it): the new body is judged on its own amount.
  const big = await send(t.admin.token, 'reused-key', transfer('30000'));
  expect(big.status).toBe(202);
  expect(big.body.data).toMatchObject({ status: 'pending', amount: '30000.000000', transaction: null });
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('99900.000000');
  // Approved, it is a payout of its own under the key.
  const approved = await call(stack.url, 'POST', `/payout-requests/${big.body.data.id}/approve`, { token: t.owner.token });
  expect(approved.status).toBe(200);
  expect(approved.body.data.transaction).toMatchObject({ status: 'completed' });
  expect(approved.body.data.transaction.id).not.toBe(first.body.data.id);
  expect(await available(t.owner.token)).toBe('69900.000000');

  // Within the 24 hours the key still answers its payout: the same request is that payout, another body a conflict; never a request.
  const recent = await send(t.admin.token, 'recent-key', transfer('100'));
  await stack.env.db.idempotencyRecord.deleteMany({ where: { workspaceId: t.workspaceId } });
  expect((await send(t.admin.token, 'recent-key', transfer('30000'))).status).toBe(409);
  const retried = await send(t.admin.token, 'recent-key', transfer('100'));
  expect(retried.status).toBe(201);
  expect(retried.body.data.id).toBe(recent.body.data.id);
  expect(await stack.env.db.payoutRequest.count({ where: { workspaceId: t.workspaceId } })).toBe(1);
});

test("a request's body idempotency_key that names another payout: its approval is refused (409) and it stays pending; a new request naming one is answered with that payout", async () => {
  const t = await team('10000');
  await setThresholds(t.owner.token, { NGN: '1000' });
  const asked = await send(t.admin.token, 'big-L', { ...transfer('5000'), idempotency_key: 'ledger-L' });
  expect(asked.status).toBe(202);
  const id = asked.body.data.id as number;
  // The same body key on a smaller payout, sent at once under another header key.
  const small = await send(t.admin.token, 'small-L', { ...transfer('500'), account_number: '0999999999', idempotency_key: 'ledger-L' });
  expect(small.status).toBe(201);
  const approve = await call(stack.url, 'POST', `/payout-requests/${id}/approve`, { token: t.owner.token });
  expect(approve.status).toBe(409);
  expect(approve.body.error).toMatchObject({
    code: 'idempotency_conflict',
    details: { field: 'idempotency_key', reason: 'idempotency_key_used', transaction: { id: small.body.data.id, reference: small.body.data.reference } },
  });
  expect(approve.body.error.message).toMatch(/idempotency_key ledger-L .*another payout/);
  expect((await call(stack.url, 'GET', `/payout-requests/${id}`, { token: t.owner.token })).body.data).toMatchObject({
    status: 'pending',
    decided_by: null,
    transaction: null,
  });
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('9500.000000');
  expect((await auditActions(t.workspaceId)).filter((e) => e.action === 'payout_request.approved')).toEqual([]);

  // A new request whose body key already names a payout is answered as a direct send is: with that payout (nothing sent, no request).
  const named = await send(t.admin.token, 'bigger-L', { ...transfer('7000'), idempotency_key: 'ledger-L' });
  expect(named.status).toBe(201);
  expect(named.body.data.id).toBe(small.body.data.id);
  expect(await stack.env.db.payoutRequest.count({ where: { workspaceId: t.workspaceId } })).toBe(1);
  expect(await debits(t.workspaceId)).toHaveLength(1);
  expect(await available(t.owner.token)).toBe('9500.000000');

  // The request's own payout found again under its body key (an approval resumed after a crash between the open and its
  // link) is its payout, not a conflict.
  const own = await send(t.admin.token, 'own-M', { ...transfer('2000'), idempotency_key: 'ledger-M' });
  const ownPath = `/payout-requests/${own.body.data.id}/approve`;
  const ownApproved = await call(stack.url, 'POST', ownPath, { token: t.owner.token });
  expect(ownApproved.status).toBe(200);
  await stack.env.db.payoutRequest.update({ where: { id: own.body.data.id }, data: { transactionId: null } });
  const resumed = await call(stack.url, 'POST', ownPath, { token: t.owner.token });
  expect(resumed.status).toBe(200);
  expect(resumed.body.data).toMatchObject({ status: 'approved', transaction: { id: ownApproved.body.data.transaction.id, status: 'completed' } });
  expect(await debits(t.workspaceId)).toHaveLength(2);
  expect(await available(t.owner.token)).toBe('7500.000000');
});

test('a requester removed or demoted: their pending requests are rejected with it, and a request whose requester may no longer ask cannot be approved', async () => {
  const t = await team();
  await setThresholds(t.owner.token, { NGN: '100' });
  const testSide = { 'Cowrie-Mode': 'test' };
  await setThresholds(t.owner.token, { NGN: '100' }, testSide);
  await fund(stack.env.db, t.testWorkspaceId, 'NGN', '1000');
  const live = await send(t.admin.token, 'leaver-live', transfer('300'));
  const test = await send(t.admin.token, 'leaver-test', transfer('300'), '/transfers', testSide);
  expect([live.status, test.status]).toEqual([202, 202]);

  const removed = await call(stack.url, 'DELETE', `/users/${t.admin.id}`, { token: t.owner.token });
  expect(removed.status).toBe(200);
  for (const [asked, headers] of [
    [live, {}],
    [test, testSide],
  ] as const) {
    const read = await call(stack.url, 'GET', `/payout-requests/${asked.body.data.id}`, { token: t.owner.token, headers });
    expect(read.body.data).toMatchObject({ status: 'rejected', decided_by: { user_id: t.owner.id }, transaction: null });
    expect(read.body.data.rejection_reason).toBe('Its requester was removed from the team');
    const late = await call(stack.url, 'POST', `/payout-requests/${asked.body.data.id}/approve`, { token: t.otherOwner.token, headers });
    expect(late.status).toBe(400);
    expect(late.body.error.details).toEqual({ reason: 'payout_request_decided', status: 'rejected' });
  }
  const rejections = (await auditActions(t.workspaceId)).filter((e) => e.action === 'payout_request.rejected');
  expect(rejections.map((e) => [e.actor, e.objectId, e.livemode, e.details.requested_by])).toEqual([
    [t.owner.email, String(live.body.data.id), true, t.admin.email],
    [t.owner.email, String(test.body.data.id), false, t.admin.email],
  ]);

  // Demoted to member: the same.
  const admin2 = await createUserFor(stack.env.db, t.workspaceId, `admin2-${++emails}@approvals.test`);
  await stack.env.db.dashboardUser.update({ where: { id: admin2.id }, data: { role: 'admin' } });
  const admin2Token = await sessionSignedInAgo(stack, admin2, 0);
  const demotedAsk = await send(admin2Token, 'demoted', transfer('300'));
  expect(demotedAsk.status).toBe(202);
  const demoted = await call(stack.url, 'PUT', `/users/${admin2.id}/role`, { token: t.owner.token, body: { role: 'member' } });
  expect(demoted.status).toBe(200);
  const demotedRead = await call(stack.url, 'GET', `/payout-requests/${demotedAsk.body.data.id}`, { token: t.owner.token });
  expect(demotedRead.body.data).toMatchObject({ status: 'rejected' });
  expect(demotedRead.body.data.rejection_reason).toBe('Its requester is no longer an owner or admin');

  // A requester who still may ask is approved on either side.
  const ownerOnTest = await send(t.owner.token, 'owner-test', transfer('300'), '/transfers', testSide);
  const approvedOnTest = await call(stack.url, 'POST', `/payout-requests/${ownerOnTest.body.data.id}/approve`, {
    token: t.otherOwner.token,
    headers: testSide,
  });
  expect(approvedOnTest.status).toBe(200);
  expect(approvedOnTest.body.data.transaction).toMatchObject({ status: 'completed' });

  // A requester disabled by the operator (or demoted by any other way): the approval is refused, the request stays pending.
  const asker = await send(t.otherOwner.token, 'disabled-later', transfer('300'));
  await stack.env.db.dashboardUser.update({ where: { id: t.otherOwner.id }, data: { disabledAt: new Date() } });
  const refused = await call(stack.url, 'POST', `/payout-requests/${asker.body.data.id}/approve`, { token: t.owner.token });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'insufficient_scope', details: { reason: 'requester_not_allowed' } });
  expect(refused.body.error.message).toMatch(/no longer an owner or admin/);
  expect((await call(stack.url, 'GET', `/payout-requests/${asker.body.data.id}`, { token: t.owner.token })).body.data).toMatchObject({
    status: 'pending',
    decided_by: null,
  });
  expect(await debits(t.workspaceId)).toEqual([]);
  expect(await available(t.owner.token)).toBe('1000.000000');
});
