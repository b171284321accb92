// Risk: inbound money credited to the wrong workspace when a provider reuses
// an account number, and a slow collection rail starving the database pool
// because accounts were opened inside transactions. Real Postgres; the rail is
// the sandbox, slowed down or made to hand out one number twice, as a
// provider that recycles numbers would.
import { Decimal } from '@cowrie/core';
import { createSandboxRail, type CollectionRail } from '@cowrie/collection-rails';
import { auditLedger, findWallet } from '@cowrie/ledger';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { ensureBusinessReservedAccount, listInboundPayments, openCollection, receiveInboundTransfer, type DepositsContext } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

/** The sandbox rail, but every one-off account gets `number` (and, unless given, one account reference for all). */
function recyclingRail(number: string, accountReference?: (reference: string) => string): CollectionRail {
  const sandbox = createSandboxRail();
  return {
    ...sandbox,
    async openOneOffAccount(input) {
      const opened = await sandbox.openOneOffAccount(input);
      return { ...opened, accountNumber: number, providerAccountReference: accountReference ? accountReference(input.reference) : `sbx_acct_${number}` };
    },
  };
}

async function pendingCollection(ctx: DepositsContext, amount: string) {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const { collection } = await openCollection(ctx, {
    workspaceId: workspace.id,
    source: 'deposit',
    amount: new Decimal(amount),
    currency: 'NGN',
    expiresInSeconds: 3600,
  });
  return { workspaceId: workspace.id, collection };
}

const inbound = (accountNumber: string, amount: string, providerReference: string, providerAccountReference?: string) => ({
  provider: 'sandbox',
  providerReference,
  accountNumber,
  providerAccountReference,
  amount: new Decimal(amount),
  currency: 'NGN',
  raw: { test: true },
});

const ledger = async (workspaceId: number) => (await findWallet(env.db, workspaceId, 'NGN'))!.balance.toFixed(6);

test('two open collections of two workspaces holding one reused number: a transfer into it credits nobody and is held for an operator', async () => {
  const ctx = { db: env.db, rail: recyclingRail('9111111111'), logger: env.logger };
  const a = await pendingCollection(ctx, '25');
  const b = await pendingCollection(ctx, '25');
  expect(a.collection.accountNumber).toBe(b.collection.accountNumber);

  const outcome = await receiveInboundTransfer(ctx, inbound('9111111111', '25', 'reused-1'));
  expect(outcome).toMatchObject({ matched: false, status: 'unmatched', reason: 'ambiguous_account', workspace_id: null });
  expect(await ledger(a.workspaceId)).toBe('0.000000');
  expect(await ledger(b.workspaceId)).toBe('0.000000');
  expect(env.logLines.some((l) => l.includes('"reason":"ambiguous_account"') && l.includes('an operator should review it'))).toBe(true);
  const held = await listInboundPayments(env.db, { status: 'unmatched', limit: 10 });
  expect(held).toContainEqual(
    expect.objectContaining({ provider_reference: 'reused-1', reason: 'ambiguous_account', amount: '25.000000', workspace_id: null }),
  );
});

test('a reused number is still matched exactly when the rail names the account it was paid into', async () => {
  const ctx = { db: env.db, rail: recyclingRail('9222222222', (reference) => `acct_${reference}`), logger: env.logger };
  const a = await pendingCollection(ctx, '30');
  const b = await pendingCollection(ctx, '30');
  const outcome = await receiveInboundTransfer(ctx, inbound('9222222222', '30', 'exact-1', b.collection.providerAccountReference!));
  expect(outcome).toMatchObject({ matched: true, workspace_id: b.workspaceId, collection_id: b.collection.id });
  expect(await ledger(b.workspaceId)).toBe('30.000000');
  expect(await ledger(a.workspaceId)).toBe('0.000000');
});

test('an expired collection does not compete for its old number: the one open collection holding it is credited', async () => {
  let now = new Date('2026-01-01T00:00:00Z');
  const ctx = { db: env.db, rail: recyclingRail('9333333333'), logger: env.logger, now: () => now };
  const old = await pendingCollection(ctx, '10');
  now = new Date(Date.now());
  const fresh = await pendingCollection(ctx, '10');
  const outcome = await receiveInboundTransfer(ctx, inbound('9333333333', '10', 'recycled-1'));
  expect(outcome).toMatchObject({ matched: true, workspace_id: fresh.workspaceId });
  expect(await ledger(old.workspaceId)).toBe('0.000000');
});

test('no transaction is held while a slow rail opens accounts: the pool keeps answering', async () => {
  const ctx = { db: env.db, rail: createSandboxRail({ delayMs: 1500 }), logger: env.logger };
  const { workspace } = await createWorkspaceWithKey(env.db);
  // More openings than the pool has connections (5 in tests).
  const openings = Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      openCollection(ctx, {
        workspaceId: workspace.id,
        source: 'deposit',
        reference: `slow-${i}`,
        amount: new Decimal('5'),
        currency: 'NGN',
        expiresInSeconds: 3600,
      }),
    ),
  );
  await new Promise((r) => setTimeout(r, 500));
  const started = Date.now();
  await env.db.$queryRaw`SELECT 1`;
  expect(Date.now() - started).toBeLessThan(500);
  const [activity] = await env.db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
  expect(activity!.n).toBe(0);
  expect((await openings).every((o) => o.created)).toBe(true);
  expect(await env.db.accountOpening.count()).toBe(0);
});

test('concurrent openings of one reference, or of one reserved account, call the rail once and record one row', async () => {
  const sandbox = createSandboxRail({ delayMs: 300 });
  let oneOffCalls = 0;
  let reservedCalls = 0;
  const rail: CollectionRail = {
    ...sandbox,
    openOneOffAccount: (input) => ((oneOffCalls += 1), sandbox.openOneOffAccount(input)),
    openReservedAccount: (input) => ((reservedCalls += 1), sandbox.openReservedAccount(input)),
  };
  const ctx = { db: env.db, rail, logger: env.logger };
  const { workspace } = await createWorkspaceWithKey(env.db);
  const opened = await Promise.all(
    Array.from({ length: 6 }, () =>
      openCollection(ctx, {
        workspaceId: workspace.id,
        source: 'deposit',
        reference: 'same-ref',
        amount: new Decimal('5'),
        currency: 'NGN',
        expiresInSeconds: 3600,
      }),
    ),
  );
  expect(oneOffCalls).toBe(1);
  expect(new Set(opened.map((o) => o.collection.id)).size).toBe(1);
  expect(opened.filter((o) => o.created)).toHaveLength(1);

  const reserved = await Promise.all(Array.from({ length: 6 }, () => ensureBusinessReservedAccount(ctx, { workspaceId: workspace.id, currency: 'NGN' })));
  expect(reservedCalls).toBe(1);
  expect(new Set(reserved.map((r) => r.account.id)).size).toBe(1);
  expect(await env.db.outboxEvent.count({ where: { workspaceId: workspace.id, event: 'reserved_account.created' } })).toBe(1);
});

test('a rail failure writes nothing and leaves no claim behind: the next opening calls the rail again', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const failing = { db: env.db, rail: createSandboxRail({ fail: true }), logger: env.logger };
  await expect(
    openCollection(failing, {
      workspaceId: workspace.id,
      source: 'deposit',
      reference: 'retry-me',
      amount: new Decimal('5'),
      currency: 'NGN',
      expiresInSeconds: 3600,
    }),
  ).rejects.toMatchObject({ code: 'provider_error', status: 503 });
  expect(await env.db.accountOpening.count({ where: { workspaceId: workspace.id } })).toBe(0);
  const ok = await openCollection(
    { ...failing, rail: createSandboxRail() },
    { workspaceId: workspace.id, source: 'deposit', reference: 'retry-me', amount: new Decimal('5'), currency: 'NGN', expiresInSeconds: 3600 },
  );
  expect(ok.created).toBe(true);
  expect((await auditLedger(env.db)).violations).toEqual([]);
});

/** The sandbox rail, counting the one-off openings it is asked for and the rail references they carry. */
function countingRail(delayMs = 0) {
  const sandbox = createSandboxRail({ delayMs });
  const references: string[] = [];
  const rail: CollectionRail = { ...sandbox, openOneOffAccount: (input) => (references.push(input.reference), sandbox.openOneOffAccount(input)) };
  return { rail, references };
}

test("an opening that finds another opener's live claim waits for that opener's account and answers with it, without calling the rail", async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const { rail, references } = countingRail();
  await env.db.accountOpening.create({ data: { workspaceId: workspace.id, scope: 'collection:waited-ref', railReference: 'col_the_other_opener' } });
  const waiting = openCollection(
    { db: env.db, rail, logger: env.logger },
    { workspaceId: workspace.id, source: 'deposit', reference: 'waited-ref', amount: new Decimal('7'), currency: 'NGN', expiresInSeconds: 3600 },
  );

  // The other opener records its account and drops its claim in one commit, as openAccountOnce does.
  await new Promise((r) => setTimeout(r, 300));
  const recorded = await env.db.$transaction(async (tx) => {
    const row = await tx.collection.create({
      data: {
        workspaceId: workspace.id,
        source: 'deposit',
        reference: 'waited-ref',
        railReference: 'col_the_other_opener',
        status: 'pending',
        currency: 'NGN',
        amount: '7',
        provider: 'sandbox',
        accountNumber: '9444444444',
        accountName: workspace.name,
        bankName: 'Cowrie Sandbox Bank',
        bankCode: '999',
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    await tx.accountOpening.deleteMany({ where: { workspaceId: workspace.id, scope: 'collection:waited-ref' } });
    return row;
  });
  const answer = await waiting;
  expect(answer).toMatchObject({ created: false, collection: { id: recorded.id, railReference: 'col_the_other_opener' } });
  expect(references).toEqual([]);
});

test('a claim left by an opener that died is taken over once stale, with its rail reference, so the rail sees the same request', async () => {
  const { workspace } = await createWorkspaceWithKey(env.db);
  const { rail, references } = countingRail();
  // Stale: older than two rail timeouts and the margin (2 × 1 s + 5 s here).
  await env.db.accountOpening.create({
    data: { workspaceId: workspace.id, scope: 'collection:orphaned-ref', railReference: 'col_dead_opener', createdAt: new Date(Date.now() - 60_000) },
  });
  const { collection, created } = await openCollection(
    { db: env.db, rail, logger: env.logger, railTimeoutMs: 1000 },
    { workspaceId: workspace.id, source: 'deposit', reference: 'orphaned-ref', amount: new Decimal('9'), currency: 'NGN', expiresInSeconds: 3600 },
  );
  expect(created).toBe(true);
  expect(references).toEqual(['col_dead_opener']);
  expect(collection.railReference).toBe('col_dead_opener');
  expect(await env.db.accountOpening.count({ where: { workspaceId: workspace.id } })).toBe(0);
});
