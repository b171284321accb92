// Risk: state kept in Redis for an earlier database (reset, restored, or a new
// one on the same Redis) taken for a new database's, because row ids start
// again. BullMQ ignores an add whose job id it holds: a code would never be
// sent while the start answered 201, and a payout would be answered with
// another payout's outcome. Counters keyed by row ids would refuse a new
// workspace for an old one's verifications or requests.
import { startPayoutWorker } from '@cowrie/payout-worker';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startVerificationWorker } from '@cowrie/verification-dispatcher';
import { fund } from './payout-stack';
import { call, startTestGateway } from '@cowrie/gateway/testing';

type Gateway = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * Runs `first` on a gateway with its own database, stops its worker, then
 * `second` on a gateway with a new database and the same Redis prefixes (so
 * the first one's finished jobs are still there), with a worker of its own.
 */
async function acrossTwoDatabases(
  startWorker: (gw: Gateway) => Promise<{ stop: () => Promise<void> }>,
  first: (gw: Gateway) => Promise<void>,
  second: (gw: Gateway, old: Gateway) => Promise<void>,
  env: Record<string, string> = { PUBLIC_API_RATE_LIMIT: '100000' },
) {
  const old = await startTestGateway(env);
  let fresh: Gateway | undefined;
  try {
    const oldWorker = await startWorker(old);
    try {
      await first(old);
    } finally {
      await oldWorker.stop();
    }
    fresh = await startTestGateway({ ...env, QUEUE_PREFIX: old.env.config.QUEUE_PREFIX, REDIS_KEY_PREFIX: old.env.config.REDIS_KEY_PREFIX });
    const freshWorker = await startWorker(fresh);
    try {
      await second(fresh, old);
    } finally {
      await freshWorker.stop();
    }
  } finally {
    // The new gateway's cleanup drops its database; the shared keys are the old one's to delete.
    await fresh?.close();
    await old.close();
  }
}

test('a verification in a new database is delivered although Redis kept the finished job of the same row id', async () => {
  let firstReference = '';
  await acrossTwoDatabases(
    (gw) => startVerificationWorker(gw.env.config, gw.env.logger),
    async (gw) => {
      const { key } = await createWorkspaceWithKey(gw.env.db);
      const started = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'first@example.com' } });
      expect(started.status).toBe(201);
      firstReference = started.body.data.reference;
    },
    async (gw, old) => {
      const { key } = await createWorkspaceWithKey(gw.env.db);
      const started = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'second@example.com' } });
      expect(started.status).toBe(201);
      const reference: string = started.body.data.reference;
      // The case under test: both rows have the same id.
      const [oldRow, newRow] = await Promise.all([
        old.env.db.verification.findUniqueOrThrow({ where: { reference: firstReference } }),
        gw.env.db.verification.findUniqueOrThrow({ where: { reference } }),
      ]);
      expect(newRow.id).toBe(oldRow.id);
      expect(newRow.deliveredAt).not.toBeNull();

      const messages = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), 'second@example.com');
      expect(messages.map((m) => m.reference)).toEqual([reference]);
      const checked = await call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code: messages[0]!.code } });
      expect(checked.body.data).toEqual({ status: 'verified' });
    },
  );
});

test('a payout in a new database is answered with its own outcome although Redis kept the finished job of the same row id', async () => {
  const transfer = (amount: number) => ({ currency: 'NGN', amount, account_number: '0123456789', bank_code: '058' });
  let firstPayout: { id: number; reference: string } = { id: 0, reference: '' };
  await acrossTwoDatabases(
    (gw) => startPayoutWorker(gw.env.config, gw.env.logger),
    async (gw) => {
      const { key, workspace } = await createWorkspaceWithKey(gw.env.db);
      await fund(gw.env.db, workspace.id, 'NGN', '1000');
      const sent = await call(gw.url, 'POST', '/v1/transfers', { token: key, body: transfer(100) });
      expect(sent.body.data).toMatchObject({ status: 'completed', amount: '100.000000' });
      firstPayout = sent.body.data;
    },
    async (gw) => {
      const { key, workspace } = await createWorkspaceWithKey(gw.env.db);
      await fund(gw.env.db, workspace.id, 'NGN', '1000');
      const sent = await call(gw.url, 'POST', '/v1/transfers', { token: key, body: transfer(250) });
      expect(sent.status).toBe(201);
      // The case under test: the same row id as the first database's payout.
      expect(sent.body.data.id).toBe(firstPayout.id);
      expect(sent.body.data.reference).not.toBe(firstPayout.reference);
      expect(sent.body.data).toMatchObject({ status: 'completed', amount: '250.000000' });
      const row = await gw.env.db.ledgerTransaction.findUniqueOrThrow({ where: { id: firstPayout.id } });
      expect({ reference: row.reference, status: row.status }).toEqual({ reference: sent.body.data.reference, status: 'completed' });
    },
  );
});

test("a new database's workspace and key with the old one's ids start with full verification limits and request budget", async () => {
  const start = (gw: Gateway, key: string) =>
    call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'same@example.com' } });
  let oldIds = { workspace: 0, key: 0 };
  await acrossTwoDatabases(
    (gw) => startVerificationWorker(gw.env.config, gw.env.logger),
    async (gw) => {
      const { key, keyId, workspace } = await createWorkspaceWithKey(gw.env.db);
      oldIds = { workspace: workspace.id, key: keyId };
      expect((await start(gw, key)).status).toBe(201);
      const refused = await start(gw, key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.details.reason).toBe('destination');
    },
    async (gw) => {
      const { key, keyId, workspace } = await createWorkspaceWithKey(gw.env.db);
      // The case under test: the same workspace and key ids as in the first database.
      expect({ workspace: workspace.id, key: keyId }).toEqual(oldIds);
      const started = await start(gw, key);
      expect(started.status).toBe(201);
      // Its own two requests at most (9 if a minute began between them); the old key's two more would leave 6.
      const read = await call(gw.url, 'GET', '/v1/channels', { token: key });
      expect(Number(read.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(8);
    },
    { PUBLIC_API_RATE_LIMIT: '10', VERIFY_RATE_DEST_LIMIT: '1', VERIFY_RATE_BIZ_LIMIT: '1' },
  );
});
