// Risk: an audit trail that can be rewritten or emptied (by the service, the
// CLI or a psql session), that keeps a secret (a password typed in the email
// field, a key, a URL's password) in its details, files a row under the wrong
// business or side, or whose filters and pages drop or repeat rows, or show
// one business another's.
import { parse } from 'csv-parse/sync';
import { createTestEnv, createUserFor, createWorkspaceWithKey, rememberSecret, type TestEnv } from '@cowrie/testing';
import type { AuditEventInput, AuditAction } from '../src';
import { AUDIT_ACTIONS, auditEventsCsv, listAuditEvents, operatorAuditContext, recordAuditEvent, recordSignInFailure, type AuditContext } from '../src';
import { isSecretField } from '@cowrie/core';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const userContext = (workspaceId: number, userId = 1, email = 'ops@example.com'): AuditContext => ({
  workspaceId,
  actor: { type: 'user', userId, email },
  clientAddress: '203.0.113.7',
  userAgent: 'jest',
  requestId: '00000000-0000-4000-8000-000000000000',
});
const record = <A extends AuditAction>(context: AuditContext, event: AuditEventInput<A>) => recordAuditEvent(env.db, context, event);
const all = async (workspaceId: number) => (await listAuditEvents(env.db, { workspaceId, limit: 100 })).items;

test('no field of the catalog is named like a secret, so what an action records is kept (a secret-named field would be cleared)', async () => {
  const secretNamed = Object.entries(AUDIT_ACTIONS).flatMap(([action, definition]) =>
    Object.keys(definition.details.shape)
      .filter((field) => isSecretField(field))
      .map((field) => `${action}.${field}`),
  );
  expect(secretNamed).toEqual([]);

  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Offboarding' });
  await record(userContext(workspace.id), { action: 'user.removed', objectId: 7, details: { email: 'gone@example.com', role: 'admin', revoked_key_count: 2 } });
  expect((await all(workspace.id))[0]!.details).toEqual({ email: 'gone@example.com', role: 'admin', revoked_key_count: 2 });
});

test('the database refuses to change, remove or empty a row, whoever asks', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Append only' });
  await record(userContext(workspace.id), { action: 'user.signed_in', objectId: 1, details: {} });
  const [row] = await env.db.auditEvent.findMany({ where: { workspaceId: workspace.id } });
  const refused = /the audit trail is append-only: (UPDATE|DELETE|TRUNCATE) on "AuditEvent" is refused/;

  await expect(env.db.auditEvent.update({ where: { id: row!.id }, data: { action: 'user.signed_out' } })).rejects.toThrow(refused);
  await expect(env.db.auditEvent.updateMany({ where: { workspaceId: workspace.id }, data: { actor: 'someone else' } })).rejects.toThrow(refused);
  await expect(env.db.auditEvent.delete({ where: { id: row!.id } })).rejects.toThrow(refused);
  await expect(env.db.auditEvent.deleteMany({})).rejects.toThrow(refused);
  await expect(env.db.$executeRawUnsafe('UPDATE "AuditEvent" SET "details" = \'{}\'')).rejects.toThrow(refused);
  await expect(env.db.$executeRawUnsafe('DELETE FROM "AuditEvent"')).rejects.toThrow(refused);
  await expect(env.db.$executeRawUnsafe('TRUNCATE "AuditEvent"')).rejects.toThrow(refused);

  expect(await env.db.auditEvent.findUniqueOrThrow({ where: { id: row!.id } })).toEqual(row);
});

test('a row of one side keeps its livemode; a row of the whole business is the live workspace, livemode true', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Sides' });
  const testSide = userContext(workspace.test_workspace_id);
  await record(testSide, { action: 'api_key.created', objectId: 7, details: { prefix: 'ck_test_0123456789abcdef', name: 'CI', scopes: ['read'] } });
  await record(testSide, { action: 'user.signed_out', objectId: 1, details: {} });
  await record(userContext(workspace.id), { action: 'api_key.revoked', objectId: 8, details: { prefix: 'ck_live_0123456789abcdef' } });
  const rows = await all(workspace.id);
  expect(rows.map((r) => [r.action, r.workspace_id, r.livemode])).toEqual([
    ['api_key.revoked', workspace.id, true],
    ['user.signed_out', workspace.id, true],
    ['api_key.created', workspace.id, false],
  ]);
  expect(rows[2]).toMatchObject({
    actor: { type: 'user', user_id: 1, email: 'ops@example.com', api_key_prefix: null, operator: null },
    object: { type: 'api_key', id: '7' },
    client_address: '203.0.113.7',
    user_agent: 'jest',
    request_id: '00000000-0000-4000-8000-000000000000',
    details: { prefix: 'ck_test_0123456789abcdef', name: 'CI', scopes: ['read'] },
  });
  // The test side's id names no trail of its own: the business's is the one.
  expect(await all(workspace.test_workspace_id)).toEqual([]);
});

test("details keep the catalog's fields only, with secrets cleared by shape; a long user agent is cut", async () => {
  const { workspace, key } = await createWorkspaceWithKey(env.db, { name: 'No secrets' });
  rememberSecret('hunter2-passphrase');
  await record(
    { ...userContext(workspace.id), userAgent: `agent ${'x'.repeat(2000)} ${key}` },
    {
      action: 'webhook_endpoint.created',
      objectId: 3,
      // A caller that passes more than the catalog names: a secret cannot ride along.
      details: { url: 'https://hook:hunter2-passphrase@example.com/in', events: ['*'], secret: 'hunter2-passphrase' } as never,
    },
  );
  const [row] = await all(workspace.id);
  expect(row!.details).toEqual({ url: 'https://hook:[redacted]@example.com/in', events: ['*'] });
  expect(row!.user_agent).toHaveLength(512);
  expect(JSON.stringify(row)).not.toContain('hunter2');
});

test('a failed sign-in keeps the email tried under its user’s business, never a password typed in its place', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Sign-ins' });
  const user = await createUserFor(env.db, workspace.id, 'known@example.com');
  const origin = { clientAddress: '198.51.100.1', userAgent: 'curl', requestId: null };
  await recordSignInFailure(env.db, origin, ' Known@Example.com ');
  await recordSignInFailure(env.db, origin, 'nobody@example.com');
  rememberSecret('my secret passphrase');
  await recordSignInFailure(env.db, origin, 'my secret passphrase');

  const rows = await all(workspace.id);
  expect(rows).toEqual([
    expect.objectContaining({
      action: 'user.sign_in_failed',
      actor: { type: 'anonymous', user_id: null, email: null, api_key_prefix: null, operator: null },
      object: { type: 'user', id: String(user.id) },
      details: { email: 'known@example.com' },
      client_address: '198.51.100.1',
    }),
  ]);
  const unowned = await env.db.auditEvent.findMany({ where: { workspaceId: null }, orderBy: { id: 'asc' } });
  expect(unowned.map((r) => [r.objectId, r.details])).toEqual([
    [null, { email: 'nobody@example.com' }],
    [null, { email: null }],
  ]);
});

test('the operator is named user@host', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Operator' });
  await record(operatorAuditContext(workspace.id), { action: 'workspace.created', objectId: workspace.id, details: { name: 'Operator' } });
  const [row] = await all(workspace.id);
  expect(row!.actor).toEqual({ type: 'operator', user_id: null, email: null, api_key_prefix: null, operator: expect.stringMatching(/^.+@.+$/) });
  expect([row!.client_address, row!.request_id]).toEqual([null, null]);
});

test('filters by action, actor (user id, email, key prefix, operator; any case) and time; pages end to end without a gap; one business only', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Filters' });
  const { workspace: other } = await createWorkspaceWithKey(env.db, { name: 'Someone else' });
  const ada = userContext(workspace.id, 41, 'ada@example.com');
  const key: AuditContext = { workspaceId: workspace.id, actor: { type: 'api_key', prefix: 'ck_live_00000000000000aa' } };
  for (let i = 0; i < 25; i++) await record(ada, { action: 'user.signed_in', objectId: 41, details: {} });
  await record(key, { action: 'webhook_endpoint.deleted', objectId: 9, details: {} });
  await record(operatorAuditContext(workspace.id), {
    action: 'wallet.credited',
    objectId: 1,
    details: { currency: 'NGN', amount: '5.000000', reference: 'r' },
  });
  await record(userContext(other.id, 41, 'ada@example.com'), { action: 'user.signed_in', objectId: 41, details: {} });

  const list = (filters: Parameters<typeof listAuditEvents>[1]) => listAuditEvents(env.db, filters);
  const ids = async (filters: Omit<Parameters<typeof listAuditEvents>[1], 'workspaceId'>) =>
    (await list({ workspaceId: workspace.id, limit: 100, ...filters })).items.map((r) => r.id);

  expect(await ids({})).toHaveLength(27);
  expect(await ids({ action: 'user.signed_in' })).toHaveLength(25);
  expect(await ids({ actor: '41' })).toHaveLength(25);
  expect(await ids({ actor: 'ADA@example.com' })).toHaveLength(25);
  expect(await ids({ actor: 'ck_live_00000000000000aa' })).toHaveLength(1);
  const [operatorRow] = (await list({ workspaceId: workspace.id, action: 'wallet.credited' })).items;
  expect(await ids({ actor: operatorRow!.actor.operator!.toUpperCase() })).toEqual([operatorRow!.id]);
  expect(await ids({ actor: 'nobody@example.com' })).toEqual([]);

  const newest = (await list({ workspaceId: workspace.id, limit: 1 })).items[0]!;
  expect(await ids({ from: new Date(newest.created_at) })).toContain(newest.id);
  expect(await ids({ to: new Date(newest.created_at) })).not.toContain(newest.id);

  // Pages of 10: every row once, newest first.
  const seen: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ workspaceId: workspace.id, limit: 10, cursor });
    seen.push(...page.items.map((r) => r.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(seen).toEqual(await ids({}));
  expect(new Set(seen).size).toBe(27);
  expect((await list({ workspaceId: other.id })).items).toHaveLength(1);
});

test('the CSV export holds the filtered rows, formula cells prefixed', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db, { name: 'Export' });
  await record({ ...userContext(workspace.id), userAgent: '=HYPERLINK("http://evil")' }, { action: 'user.signed_in', objectId: 1, details: {} });
  await record(userContext(workspace.id), { action: 'user.invited', objectId: 2, details: { email: 'new@example.com', role: 'member' } });
  let text = '';
  for await (const chunk of auditEventsCsv(env.db, { workspaceId: workspace.id })) text += chunk;
  const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
  expect(rows.map((r) => r.action)).toEqual(['user.invited', 'user.signed_in']);
  expect(rows[0]).toMatchObject({ actor_type: 'user', actor: 'ops@example.com', object_type: 'user', object_id: '2', livemode: 'true' });
  expect(JSON.parse(rows[0]!.details!)).toEqual({ email: 'new@example.com', role: 'member' });
  expect(rows[1]!.user_agent).toBe(`'=HYPERLINK("http://evil")`);

  let filtered = '';
  for await (const chunk of auditEventsCsv(env.db, { workspaceId: workspace.id, action: 'user.invited' })) filtered += chunk;
  expect(parse(filtered, { columns: true })).toHaveLength(1);
});
