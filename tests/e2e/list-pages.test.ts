// Risk: a /v1 list that stops silently (beneficiaries after 500 rows,
// recipients after 100, reserved accounts after 50), so a client never learns
// there is more; or paging that changes what existing clients get: another
// first page, another order, a field renamed or dropped. These lists take the
// cursor of /v1/transactions (`limit`, `cursor`, `meta.next_cursor`), and a
// request without either answers the rows it always did. A crafted cursor
// whose id Postgres cannot hold is a 400 naming the cursor, never a 500.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { fund, startPayoutStack } from './payout-stack';
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';

let stack: Awaited<ReturnType<typeof startPayoutStack>>;

beforeAll(async () => {
  stack = await startPayoutStack();
});
afterAll(async () => {
  await stack?.close();
});

const get = (path: string, token: string) => call(stack.url, 'GET', path, { token });

test('beneficiaries: without a limit the first 500, newest first as before, then a cursor to the rest; a bad limit or cursor is 400', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db, { name: 'Many beneficiaries' });
  await stack.env.db.beneficiary.createMany({
    data: Array.from({ length: 501 }, (_, i) => ({
      workspaceId: workspace.id,
      name: `Payee ${i}`,
      accountNumber: String(1000000000 + i),
      bankCode: '058',
      bankName: 'Guaranty Trust Bank',
      currency: 'NGN',
    })),
  });
  const rows = await stack.env.db.beneficiary.findMany({ where: { workspaceId: workspace.id }, orderBy: { id: 'desc' } });

  const first = await get('/v1/beneficiaries', key);
  expect(first.status).toBe(200);
  // The fields and order of before: the 500 newest, rendered as ever.
  expect(first.body.data).toHaveLength(500);
  expect(first.body.data[0]).toEqual({
    id: rows[0]!.id,
    name: 'Payee 500',
    account_number: '1000000500',
    bank_code: '058',
    bank_name: 'Guaranty Trust Bank',
    currency: 'NGN',
    active: true,
    created_at: rows[0]!.createdAt.toISOString(),
  });
  expect(first.body.data.map((b: { id: number }) => b.id)).toEqual(rows.slice(0, 500).map((r) => r.id));
  expect(first.body.meta).toEqual({ request_id: expect.any(String), next_cursor: expect.any(String) });

  const rest = await get(`/v1/beneficiaries?cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, key);
  expect(rest.body.data.map((b: { id: number }) => b.id)).toEqual([rows[500]!.id]);
  expect(rest.body.meta.next_cursor).toBeNull();

  // Smaller pages walk the same rows.
  const walked: number[] = [];
  let cursor: string | null = null;
  do {
    const page = await get(`/v1/beneficiaries?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    walked.push(...page.body.data.map((b: { id: number }) => b.id));
    cursor = page.body.meta.next_cursor;
  } while (cursor);
  expect(walked).toEqual(rows.map((r) => r.id));

  expect((await get('/v1/beneficiaries?limit=501', key)).body.error).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
  expect((await get('/v1/beneficiaries?cursor=not-a-cursor', key)).body.error).toMatchObject({ code: 'invalid_request', details: { field: 'cursor' } });
});

test('recipients: one per account, most recent first, paged by their latest payout; the last page says so', async () => {
  const { workspace, key } = await createWorkspaceWithKey(stack.env.db, { name: 'Recipients' });
  await fund(stack.env.db, workspace.id, 'NGN', '1000');
  const accounts = ['0200000001', '0200000002', '0200000003', '0200000001'];
  for (const account_number of accounts) {
    const sent = await call(stack.url, 'POST', '/v1/transfers', { token: key, body: { currency: 'NGN', amount: 10, account_number, bank_code: '058' } });
    expect(sent.body.data.status).toBe('completed');
  }
  const all = await get('/v1/recipients', key);
  // Paid last first: 0200000001 again, then 3, then 2.
  expect(all.body.data.map((r: { account_number: string; payouts: number }) => [r.account_number, r.payouts])).toEqual([
    ['0200000001', 2],
    ['0200000003', 1],
    ['0200000002', 1],
  ]);
  expect(all.body.meta.next_cursor).toBeNull();
  const first = await get('/v1/recipients?limit=2', key);
  expect(first.body.data).toEqual(all.body.data.slice(0, 2));
  const second = await get(`/v1/recipients?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, key);
  expect(second.body.data).toEqual(all.body.data.slice(2));
  expect(second.body.meta.next_cursor).toBeNull();
  expect((await get('/v1/recipients?limit=101', key)).status).toBe(400);
});

test('reserved accounts: the limit clamped as before, and a cursor to the rest', async () => {
  const { key } = await createWorkspaceWithKey(stack.env.db, { name: 'Reserved' });
  for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
    const made = await call(stack.url, 'POST', '/v1/reserved-accounts', { token: key, body: { customer_name: 'Ada Obi', customer_email: email } });
    expect(made.status).toBe(201);
  }
  const all = await get('/v1/reserved-accounts?limit=500', key);
  expect(all.body.data.map((a: { customer: { email: string } }) => a.customer.email)).toEqual(['c@example.com', 'b@example.com', 'a@example.com']);
  expect(all.body.meta.next_cursor).toBeNull();
  const first = await get('/v1/reserved-accounts?limit=2', key);
  const rest = await get(`/v1/reserved-accounts?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, key);
  expect([...first.body.data, ...rest.body.data]).toEqual(all.body.data);
});

test('a crafted cursor whose id is past int4 (or negative) is 400 on every list, never a 500; the audit trail (bigint ids) pages past int4', async () => {
  const { token, apiKey } = await signInNewWorkspace(stack, 'Crafted cursors');
  // A position a day ahead: every row so far is before it.
  const crafted = (id: number) => Buffer.from(JSON.stringify([Date.now() + 86_400_000, id])).toString('base64url');
  const lists = [
    ['/v1/transactions', apiKey],
    ['/v1/beneficiaries', apiKey],
    ['/v1/recipients', apiKey],
    ['/v1/reserved-accounts', apiKey],
    ['/verifications', token],
    ['/collections', token],
    ['/deposit-payments', token],
    ['/payout-requests', token],
    ['/transactions', token],
    ['/reserved-accounts', token],
    ['/beneficiaries', token],
  ] as const;
  for (const [path, as] of lists) {
    for (const id of [2_147_483_647 + 1, -1]) {
      const res = await get(`${path}?cursor=${crafted(id)}`, as);
      expect([path, id, res.status, res.body.error?.code, res.body.error?.details?.field]).toEqual([path, id, 400, 'invalid_request', 'cursor']);
    }
    expect([path, (await get(`${path}?cursor=${crafted(2_147_483_647)}`, as)).status]).toEqual([path, 200]);
  }
  // The audit trail's ids are bigint: a position past int4 is a page (of the rows before it), one past 2^53 is not a cursor.
  const trail = await get(`/audit-events?cursor=${crafted(2_147_483_647 + 1)}`, token);
  expect([trail.status, trail.body.data.map((r: { action: string }) => r.action)]).toEqual([200, ['user.signed_in']]);
  for (const id of [2 ** 53, -1]) {
    expect((await get(`/audit-events?cursor=${crafted(id)}`, token)).body.error).toMatchObject({ code: 'invalid_request', details: { field: 'cursor' } });
  }
});
