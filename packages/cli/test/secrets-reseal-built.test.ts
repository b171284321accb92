// Risk: the CLI as built (bin/cowrie.js running dist/, where each lazily loaded
// module is its own bundle with its own copy of @cowrie/core) never learns
// ENCRYPTION_KEY_PREVIOUS where it opens sealed values: `secrets reseal`
// reports everything the old key sealed as unreadable, and the rotation in the
// runbook cannot be finished. The other tests run the CLI from its sources in
// one module graph, so they cannot see it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startTotpEnrolment } from '@cowrie/accounts';
import { decryptSecret, encryptSecret, loadConfig } from '@cowrie/core';
import { createUserFor, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createSandboxProvider, sandboxOutbox } from '@cowrie/verification';

const BIN = path.resolve(__dirname, '../bin/cowrie.js');
const MAIN = path.resolve(__dirname, '../dist/main.js');

let env: TestEnv;
beforeAll(async () => {
  // Without dist/ the bin runs the sources (one module graph), which would hide the defect.
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run build first`);
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const bin = (args: string[], vars: Record<string, string>) =>
  spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, REDIS_CLUSTER_NODES: '', REDIS_SENTINELS: '', ...vars },
    encoding: 'utf8',
  });

test('the installed bin, with ENCRYPTION_KEY_PREVIOUS, reseals everything the previous key sealed and exits 0', async () => {
  const oldKey = randomBytes(32).toString('hex');
  const key = randomBytes(32).toString('hex');
  const { workspace } = await createWorkspaceWithKey(env.db);
  const secrets = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
  const ids: number[] = [];
  for (const [i, secret] of secrets.entries()) {
    const row = await env.db.webhookEndpoint.create({
      data: { workspaceId: workspace.id, url: `https://example.com/built-${i}`, events: ['*'], secretEncrypted: encryptSecret(secret, oldKey) },
    });
    ids.push(row.id);
  }
  const user = await createUserFor(env.db, workspace.id);
  const { secret: totpSecret } = await startTotpEnrolment(env.db, { userId: user.id, encryptionKey: oldKey });

  const vars = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, ENCRYPTION_KEY: key, ENCRYPTION_KEY_PREVIOUS: oldKey };
  const out = bin(['secrets', 'reseal'], vars);
  expect(out.stderr).toBe('');
  expect(out.status).toBe(0);
  expect(JSON.parse(out.stdout)).toMatchObject({ previous_key: true, resealed: 3, current: 0, unreadable: 0 });

  // The new key alone now opens all of it.
  loadConfig({ ENCRYPTION_KEY: key });
  const endpoints = await env.db.webhookEndpoint.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
  expect(endpoints.map((e) => decryptSecret(e.secretEncrypted, key))).toEqual(secrets);
  const sealedTotp = (await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } })).totpSecretSealed!;
  expect(decryptSecret(sealedTotp, key)).toBe(totpSecret);

  const again = bin(['secrets', 'reseal'], vars);
  expect(again.status).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ resealed: 0, current: 3, unreadable: 0 });
});

test('the installed bin, with ENCRYPTION_KEY_PREVIOUS, lists a sandbox message the previous key sealed', async () => {
  const oldKey = randomBytes(32).toString('hex');
  const key = randomBytes(32).toString('hex');
  const destination = 'rotated@example.com';
  const sandbox = createSandboxProvider({ outbox: sandboxOutbox(env.redis, { ...env.config, ENCRYPTION_KEY: oldKey }), retentionSeconds: 60 });
  await sandbox.send({ channel: 'email', destination, code: '8642', reference: 'ref-rotated', validForMinutes: 5 });

  const out = bin(['sandbox', 'messages', '--destination', destination], {
    REDIS_URL: env.config.REDIS_URL,
    REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX,
    ENCRYPTION_KEY: key,
    ENCRYPTION_KEY_PREVIOUS: oldKey,
  });
  expect(out.status).toBe(0);
  expect(JSON.parse(out.stdout).messages).toEqual([expect.objectContaining({ code: '8642', reference: 'ref-rotated' })]);
});
