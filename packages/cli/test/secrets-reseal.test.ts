// Risk: a rotated ENCRYPTION_KEY that locks Cowrie out of what the old key
// sealed (webhook secrets, TOTP secrets, stored answers holding a new API
// key), a reseal that misses a column or a page of rows, cannot be run again
// after it stopped, or lets the operator drop the previous key while a value
// only an unknown key opens remains.
import { randomBytes } from 'node:crypto';
import { startTotpEnrolment } from '@cowrie/accounts';
import { decryptSecret, encryptSecret, loadConfig } from '@cowrie/core';
import { createUserFor, createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { runCli } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const newKey = () => randomBytes(32).toString('hex');

test('ENCRYPTION_KEY_PREVIOUS opens what the old key sealed; secrets reseal moves every sealed value to the new key, resumably, with counts; then the previous key can go', async () => {
  const oldKey = env.config.ENCRYPTION_KEY;
  const key = newKey();
  const { workspace } = await createWorkspaceWithKey(env.db);
  // Five endpoints (three pages at --batch 2), one of them with a rolled secret still in its grace period.
  const endpointSecrets: string[] = [];
  const endpointIds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const secret = randomBytes(32).toString('hex');
    endpointSecrets.push(secret);
    const row = await env.db.webhookEndpoint.create({
      data: { workspaceId: workspace.id, url: `https://example.com/hook-${i}`, events: ['*'], secretEncrypted: encryptSecret(secret, oldKey) },
    });
    endpointIds.push(row.id);
  }
  const rolledOut = randomBytes(32).toString('hex');
  await env.db.webhookEndpoint.update({
    where: { id: endpointIds[0]! },
    data: { previousSecretEncrypted: encryptSecret(rolledOut, oldKey), previousSecretExpiresAt: new Date(Date.now() + 3600_000) },
  });
  // A TOTP secret as enrolment seals it, and a stored answer holding a secret as the Idempotency-Key layer seals it.
  const user = await createUserFor(env.db, workspace.id);
  const { secret: totpSecret } = await startTotpEnrolment(env.db, { userId: user.id, encryptionKey: oldKey });
  const answer = JSON.stringify({ data: { key: 'ck_live_abc_secret' } });
  const record = await env.db.idempotencyRecord.create({
    data: {
      workspaceId: workspace.id,
      key: 'reseal-test',
      requestHash: 'h',
      state: 'completed',
      responseStatus: 201,
      responseBody: { sealed: encryptSecret(answer, oldKey) },
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  // An unsealed stored answer is not a sealed value and is not touched.
  await env.db.idempotencyRecord.create({
    data: {
      workspaceId: workspace.id,
      key: 'plain',
      requestHash: 'h',
      state: 'completed',
      responseStatus: 200,
      responseBody: { data: { ok: true } },
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  // One value sealed under a key nobody has any more.
  const stray = await env.db.webhookEndpoint.create({
    data: { workspaceId: workspace.id, url: 'https://example.com/stray', events: ['*'], secretEncrypted: encryptSecret('lost', newKey()) },
  });

  const stored = async () => ({
    endpoints: await env.db.webhookEndpoint.findMany({ where: { id: { in: endpointIds } }, orderBy: { id: 'asc' } }),
    totp: (await env.db.dashboardUser.findUniqueOrThrow({ where: { id: user.id } })).totpSecretSealed!,
    answer: ((await env.db.idempotencyRecord.findUniqueOrThrow({ where: { id: record.id } })).responseBody as { sealed: string }).sealed,
  });
  const opensAll = async (k: string) => {
    const now = await stored();
    expect(now.endpoints.map((e) => decryptSecret(e.secretEncrypted, k))).toEqual(endpointSecrets);
    expect(decryptSecret(now.endpoints[0]!.previousSecretEncrypted!, k)).toBe(rolledOut);
    expect(decryptSecret(now.totp, k)).toBe(totpSecret);
    expect(decryptSecret(now.answer, k)).toBe(answer);
  };

  // The new key alone opens none of it.
  loadConfig({ ENCRYPTION_KEY: key });
  const sealedTotp = (await stored()).totp;
  expect(() => decryptSecret(sealedTotp, key)).toThrow();
  // With the old key as ENCRYPTION_KEY_PREVIOUS, everything opens, and new values are sealed under the new key only.
  const rotating = { DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, ENCRYPTION_KEY: key, ENCRYPTION_KEY_PREVIOUS: oldKey };
  loadConfig(rotating);
  await opensAll(key);
  expect(() => decryptSecret(encryptSecret('new', key), oldKey)).toThrow();

  // A run stopped part-way: two endpoints were already resealed. They count as current.
  for (const id of endpointIds.slice(3)) {
    const row = await env.db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    await env.db.webhookEndpoint.update({ where: { id }, data: { secretEncrypted: encryptSecret(decryptSecret(row.secretEncrypted, key), key) } });
  }
  const first = await runCli(['secrets', 'reseal', '--batch', '2'], rotating);
  // The stray value keeps the exit code at 1: the previous key must not be dropped yet.
  expect(first.code).toBe(1);
  const report = JSON.parse(first.stdout);
  expect(report).toMatchObject({
    previous_key: true,
    columns: {
      'WebhookEndpoint.secretEncrypted': { resealed: 3, current: 2, unreadable: 1, changed: 0 },
      'WebhookEndpoint.previousSecretEncrypted': { resealed: 1, current: 0, unreadable: 0 },
      'DashboardUser.totpSecretSealed': { resealed: 1, current: 0, unreadable: 0 },
      'IdempotencyRecord.responseBody': { resealed: 1, current: 0, unreadable: 0 },
    },
  });
  // Other test files' rows do not exist in this database: the totals are these rows'.
  expect(report).toMatchObject({ resealed: 6, current: 2, unreadable: 1, changed: 0 });
  expect((await env.db.idempotencyRecord.findFirstOrThrow({ where: { key: 'plain' } })).responseBody as object).toEqual({ data: { ok: true } });

  // Run again: nothing left to do.
  const again = JSON.parse((await runCli(['secrets', 'reseal'], rotating)).stdout);
  expect(again).toMatchObject({ resealed: 0, current: 8, unreadable: 1 });

  // Once the stray row is dealt with, the run exits 0, and the new key alone opens everything.
  await env.db.webhookEndpoint.delete({ where: { id: stray.id } });
  const done = await runCli(['secrets', 'reseal'], rotating);
  expect(done.code).toBe(0);
  expect(JSON.parse(done.stdout)).toMatchObject({ resealed: 0, current: 8, unreadable: 0 });
  loadConfig({ ENCRYPTION_KEY: key });
  await opensAll(key);
  const resealedTotp = (await stored()).totp;
  expect(() => decryptSecret(resealedTotp, oldKey)).toThrow();

  // And back (the test env's own key), the same way.
  const back = await runCli(['secrets', 'reseal'], { ...rotating, ENCRYPTION_KEY: oldKey, ENCRYPTION_KEY_PREVIOUS: key });
  expect(JSON.parse(back.stdout)).toMatchObject({ resealed: 8, unreadable: 0 });
  loadConfig({ ENCRYPTION_KEY: oldKey });
  await opensAll(oldKey);
});

test('secrets reseal --help explains the rotation; a bad --batch is a usage error', async () => {
  const help = await runCli(['secrets', 'reseal', '--help'], {});
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/ENCRYPTION_KEY_PREVIOUS/);
  expect(help.stdout).toMatch(/--batch N/);
  const bad = await runCli(['secrets', 'reseal', '--batch', '0'], { DATABASE_URL: env.config.DATABASE_URL });
  expect(bad.code).toBe(2);
});
