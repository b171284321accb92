// Risk: a slow collection rail starving the gateway's database pool because
// accounts were opened inside transactions (every opening holding a pooled
// connection, idle in transaction, while the rail answers); one reference or
// one reserved account opened twice at the rail; inbound money credited to the
// wrong workspace when the provider reuses an account number, or credited
// twice when its notification arrives many times at once. Real gateway, real
// Postgres, the Paystack stand-in over loopback HTTP.
import { auditLedger, findWallet } from '@cowrie/ledger';
import { parseMetrics, sampleValue } from '@cowrie/metrics';
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { paystackChargeSuccess, startPaystackStandIn } from '@cowrie/paystack/testing';
import { runCli } from '@cowrie/cli';
import { call, startTestGateway } from '@cowrie/gateway/testing';

const SECRET = 'sk_test_money_safety_standin_0123456789';
const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
/** The test env's pools hold 5 connections each; more openings than that are in flight at once below. */
const POOL_SIZE = 5;
let standIn: Awaited<ReturnType<typeof startPaystackStandIn>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
  gw = await startTestGateway({
    COLLECTION_RAIL: 'paystack',
    PAYSTACK_SECRET_KEY: SECRET,
    PAYSTACK_BASE_URL: standIn.url,
    PAYSTACK_TIMEOUT_MS: '10000',
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    METRICS_TOKEN,
  });
});
afterAll(async () => {
  await gw.close();
  await standIn.close();
});
beforeEach(() => {
  standIn.options.delayMs = 0;
  standIn.options.recycledAccountNumber = null;
});

const deposit = (token: string, body: unknown) => call(gw.url, 'POST', '/v1/deposits', { token, body });
const notify = ({ rawBody, signature }: { rawBody: string; signature: string }) =>
  call(gw.url, 'POST', '/rails/paystack/notifications', { rawBody, headers: { 'x-paystack-signature': signature } });
const chargesFor = (merchantReference: string) =>
  standIn.requests.filter((r) => r.path === '/charge' && r.body?.metadata?.cowrie_reference === merchantReference);
const ledgerOf = async (workspaceId: number) => (await findWallet(gw.env.db, workspaceId, 'NGN'))!.balance.toFixed(6);

test('while more openings than the pool holds wait on a slow rail, a database read through the gateway answers at once and no session is idle in transaction', async () => {
  const { key } = await createWorkspaceWithKey(gw.env.db, { name: 'Slow Rail Co' });
  const openings = 2 * POOL_SIZE;
  const release = standIn.holdAnswers();
  try {
    const pending = Promise.all(
      Array.from({ length: openings }, (_, i) => deposit(key, { channel: 'collection_va', amount: 100 + i, reference: `slow-${i}` })),
    );
    const seenByRail = () => Array.from({ length: openings }, (_, i) => chargesFor(`slow-${i}`).length).reduce((a, b) => a + b, 0);
    // The rail holds its answers: wait until every opening reached it, or none more arrives for a second (the rest wait for a pooled connection).
    await waitFor(() => seenByRail() >= POOL_SIZE, 15_000);
    for (let seen = seenByRail(), quietSince = Date.now(); seen < openings && Date.now() - quietSince < 1000;) {
      await new Promise((r) => setTimeout(r, 50));
      if (seenByRail() !== seen) [seen, quietSince] = [seenByRail(), Date.now()];
    }

    // The test's own pool (not the gateway's) looks at the sessions while the rail is answering.
    const [activity] = await gw.env.db.$queryRaw<Array<{ idle: number }>>`
      SELECT count(*)::int AS idle FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
    const readStarted = Date.now();
    const read = await fetch(`${gw.url}/v1/reserved-accounts`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5000) }).then(
      (res) => res.status,
      () => 'no answer within 5 s',
    );
    const readMs = Date.now() - readStarted;
    expect(activity!.idle).toBe(0);
    expect(read).toBe(200);
    expect(readMs).toBeLessThan(2000);
    // Every opening reached the rail at once: none waited for another's pooled connection.
    expect(seenByRail()).toBe(openings);

    release();
    const results = await pending;
    expect(results.map((r) => r.status)).toEqual(Array(openings).fill(201));
    expect(new Set(results.map((r) => r.body.data.account.account_number)).size).toBe(openings);
    expect(await gw.env.db.accountOpening.count()).toBe(0);
  } finally {
    release();
  }
});

test('concurrent openings of one reference, and of the business reserved account, reach the rail once and record one row', async () => {
  const { key, workspace } = await createWorkspaceWithKey(gw.env.db, { name: 'Race Co' });
  standIn.options.delayMs = 300;
  const oneOff = await Promise.all(Array.from({ length: 6 }, () => deposit(key, { channel: 'collection_va', amount: 10, reference: 'same-order' })));
  expect(oneOff.map((r) => r.status)).toEqual(Array(6).fill(201));
  expect(new Set(oneOff.map((r) => r.body.data.account.account_number)).size).toBe(1);
  expect(chargesFor('same-order')).toHaveLength(1);
  expect(await gw.env.db.collection.count({ where: { workspaceId: workspace.id, reference: 'same-order' } })).toBe(1);

  const dedicatedBefore = standIn.requests.filter((r) => r.path === '/dedicated_account').length;
  const reserved = await Promise.all(Array.from({ length: 6 }, () => deposit(key, { channel: 'reserved_va' })));
  expect(reserved.map((r) => r.status)).toEqual(Array(6).fill(201));
  expect(new Set(reserved.map((r) => r.body.data.account.account_number)).size).toBe(1);
  expect(standIn.requests.filter((r) => r.path === '/dedicated_account').length - dedicatedBefore).toBe(1);
  expect(await gw.env.db.reservedAccount.count({ where: { workspaceId: workspace.id } })).toBe(1);
  expect(await gw.env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'reserved_account.created' } })).toBe(1);
  expect(await gw.env.db.accountOpening.count({ where: { workspaceId: workspace.id } })).toBe(0);
});

test('a transfer into a number the provider handed to two open collections credits nobody: held for an operator, logged, counted and listed', async () => {
  standIn.options.recycledAccountNumber = '9900000777';
  const a = await createWorkspaceWithKey(gw.env.db, { name: 'First Holder' });
  const b = await createWorkspaceWithKey(gw.env.db, { name: 'Second Holder' });
  for (const ws of [a, b]) {
    const res = await deposit(ws.key, { channel: 'collection_va', amount: 2500 });
    expect(res.status).toBe(201);
    expect(res.body.data.account.account_number).toBe('9900000777');
  }

  // A transfer to the account (dedicated_nuban): the rail names the number, not the charge it was opened under.
  const res = await notify(paystackChargeSuccess(SECRET, { reference: 'T_reused_number_1', amountKobo: 250000, accountNumber: '9900000777' }));
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ received: true, matched: false, duplicate: false, status: 'unmatched', reason: 'ambiguous_account' });
  expect(await ledgerOf(a.workspace.id)).toBe('0.000000');
  expect(await ledgerOf(b.workspace.id)).toBe('0.000000');
  expect(await gw.env.db.collection.count({ where: { accountNumber: '9900000777', status: 'pending' } })).toBe(2);
  expect(await gw.env.db.outboxEvent.count({ where: { workspaceId: { in: [a.workspace.id, b.workspace.id] }, event: 'collection.successful' } })).toBe(0);

  const warning = gw.env.logLines
    .filter((l) => l.includes('T_reused_number_1'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.providerReference === 'T_reused_number_1' && l.reason === 'ambiguous_account');
  expect(warning).toMatchObject({ level: 40, accountNumber: '9900000777', workspaceId: null });

  const metrics = parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text());
  expect(sampleValue(metrics, 'cowrie_inbound_payments_total', { provider: 'paystack', status: 'unmatched', reason: 'ambiguous_account' })).toBe(1);

  const listed = await runCli(['inbound', 'list', '--status', 'unmatched'], {
    DATABASE_URL: gw.env.config.DATABASE_URL,
    REDIS_URL: gw.env.config.REDIS_URL,
    LOG_LEVEL: 'silent',
  });
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout).inbound_payments).toContainEqual(
    expect.objectContaining({
      provider: 'paystack',
      provider_reference: 'T_reused_number_1',
      status: 'unmatched',
      reason: 'ambiguous_account',
      amount: '2500.000000',
      workspace_id: null,
    }),
  );
});

test('a reserved account number the provider already handed to another account is a 503 provider_error, logged, nothing recorded; a retry on a fresh number opens it', async () => {
  standIn.options.recycledAccountNumber = '9900000888';
  const holder = await createWorkspaceWithKey(gw.env.db, { name: 'Reserved Holder' });
  const latecomer = await createWorkspaceWithKey(gw.env.db, { name: 'Reserved Latecomer' });
  const first = await deposit(holder.key, { channel: 'reserved_va' });
  expect(first.status).toBe(201);
  expect(first.body.data.account.account_number).toBe('9900000888');

  const second = await deposit(latecomer.key, { channel: 'reserved_va' });
  expect(second.status).toBe(503);
  expect(second.body.error).toMatchObject({ code: 'provider_error' });
  expect(await gw.env.db.reservedAccount.count({ where: { workspaceId: latecomer.workspace.id } })).toBe(0);
  expect(await gw.env.db.accountOpening.count({ where: { workspaceId: latecomer.workspace.id } })).toBe(0);
  expect(await gw.env.db.outboxEvent.count({ where: { workspaceId: latecomer.workspace.id, event: 'reserved_account.created' } })).toBe(0);
  // The holder keeps its account.
  expect(await gw.env.db.reservedAccount.findMany({ where: { accountNumber: '9900000888' }, select: { workspaceId: true } })).toEqual([
    { workspaceId: holder.workspace.id },
  ]);
  const logged = gw.env.logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'the collection rail returned an account number another account holds' && l.workspaceId === latecomer.workspace.id);
  expect(logged).toMatchObject({ level: 50, accountNumber: '9900000888' });

  standIn.options.recycledAccountNumber = null;
  const retried = await deposit(latecomer.key, { channel: 'reserved_va' });
  expect(retried.status).toBe(201);
  expect(retried.body.data.account.account_number).not.toBe('9900000888');
});

test('one notification delivered ten times at once credits once: one ledger credit, one collection.successful, the ledger audit clean', async () => {
  const { key, workspace } = await createWorkspaceWithKey(gw.env.db, { name: 'Retry Storm Co' });
  const opened = await deposit(key, { channel: 'collection_va', amount: 1200, reference: 'storm-order' });
  expect(opened.status).toBe(201);
  const row = await gw.env.db.collection.findUniqueOrThrow({ where: { workspaceId_reference: { workspaceId: workspace.id, reference: 'storm-order' } } });
  const notification = paystackChargeSuccess(SECRET, {
    reference: row.railReference,
    amountKobo: 120000,
    accountNumber: row.accountNumber,
    channel: 'bank_transfer',
  });

  const answers = await Promise.all(Array.from({ length: 10 }, () => notify(notification)));
  expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
  expect(answers.filter((r) => !r.body.data.duplicate)).toHaveLength(1);
  expect(answers.every((r) => r.body.data.matched === true && r.body.data.status === 'credited')).toBe(true);

  expect(await ledgerOf(workspace.id)).toBe('1200.000000');
  expect(await gw.env.db.ledgerTransaction.count({ where: { workspaceId: workspace.id, type: 'credit' } })).toBe(1);
  expect(await gw.env.db.inboundPayment.count({ where: { provider: 'paystack', providerReference: row.railReference } })).toBe(1);
  expect(await gw.env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'collection.successful' } })).toBe(1);
  expect((await gw.env.db.collection.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('successful');
  expect((await auditLedger(gw.env.db)).violations).toEqual([]);
});
