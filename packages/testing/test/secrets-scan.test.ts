// Risk: a scan that finds nothing because it looks in the wrong places would
// let every test file pass while secrets sit in plain text.
import { encryptSecret } from '@cowrie/core';
import { createWorkspaceWithKey } from '../src/scenarios';
import { scanForSecrets } from '../src/secrets-scan';
import { createTestEnv, type TestEnv } from '../src/test-env';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const scan = () =>
  scanForSecrets({
    config: env.config,
    db: env.db,
    redis: env.redis,
    redisPatterns: [`${env.config.REDIS_KEY_PREFIX}*`, `${env.config.QUEUE_PREFIX}:*`],
    logLines: env.logLines,
  });

test('finds a remembered key, a webhook secret (current, previous, whsec_), a session token and a code in Postgres, Redis job data and log lines', async () => {
  expect(await scan()).toEqual([]);
  const { key, workspaceId } = await createWorkspaceWithKey(env.db);
  const webhookSecret = 'f'.repeat(20) + '0123456789abcdef'.repeat(2) + 'e'.repeat(12);
  const previousSecret = 'a'.repeat(20) + '0123456789abcdef'.repeat(2) + 'b'.repeat(12);
  const endpoint = await env.db.webhookEndpoint.create({
    data: {
      workspaceId,
      url: 'https://example.com/hook',
      events: ['*'],
      secretEncrypted: encryptSecret(webhookSecret, env.config.ENCRYPTION_KEY),
      previousSecretEncrypted: encryptSecret(previousSecret, env.config.ENCRYPTION_KEY),
      previousSecretExpiresAt: new Date(Date.now() + 60_000),
    },
  });
  const whsec = `whsec_${Buffer.from(webhookSecret, 'utf8').toString('base64')}`;
  const session = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXBhcnQtbG9uZw';
  const event = await env.db.outboxEvent.create({ data: { workspaceId, event: 'test.planted', payload: { note: key } } });
  const jobKey = `${env.config.QUEUE_PREFIX}:planted:1`;
  await env.redis.hset(jobKey, 'data', JSON.stringify({ secret: webhookSecret, code: '4821' }));
  const listKey = `${env.config.REDIS_KEY_PREFIX}planted`;
  await env.redis.lpush(listKey, `Your verification code is 4821. It expires in 5 minutes.`);
  const previousKey = `${env.config.REDIS_KEY_PREFIX}previous`;
  await env.redis.set(previousKey, previousSecret);
  env.logLines.push(JSON.stringify({ msg: 'planted', token: session }));
  env.logLines.push(JSON.stringify({ msg: 'planted', standard_webhooks_secret: whsec }));

  const leaks = await scan();
  const found = (where: string) =>
    leaks
      .filter((l) => l.where.startsWith(where))
      .map((l) => l.what)
      .sort();
  expect(found('postgres')).toEqual(['a password or key the test used', 'an API key']);
  expect(found(`redis ${jobKey}`)).toEqual(['a one-time code', 'a webhook secret']);
  expect(found(`redis ${listKey}`)).toEqual(['a one-time code']);
  expect(found(`redis ${previousKey}`)).toEqual(['a webhook secret']);
  expect(found('log line')).toEqual(['a session token', 'a webhook secret in Standard Webhooks form']);
  // What is reported never repeats the secret.
  expect(JSON.stringify(leaks)).not.toContain(key);
  expect(JSON.stringify(leaks)).not.toContain(webhookSecret);
  expect(JSON.stringify(leaks)).not.toContain(whsec.slice(6));

  // Removed again, so this file's own cleanup scan passes.
  await env.db.outboxEvent.delete({ where: { id: event.id } });
  await env.db.webhookEndpoint.delete({ where: { id: endpoint.id } });
  await env.redis.del(jobKey, listKey, previousKey);
  env.logLines.splice(-2);
  expect(await scan()).toEqual([]);
});

test('looks in the audit trail too, whose rows nothing may remove', async () => {
  const { key, workspaceId } = await createWorkspaceWithKey(env.db);
  const planted = await env.db.auditEvent.create({
    data: { workspaceId, livemode: true, action: 'api_key.created', actorType: 'operator', actor: 'ops@host', details: { prefix: key } },
  });
  expect((await scan()).map((l) => [l.where, l.what])).toEqual([
    ['postgres', 'a password or key the test used'],
    ['postgres', 'an API key'],
  ]);
  // The trail refuses a DELETE: only a superuser with triggers switched off takes the planted row out again.
  await expect(env.db.auditEvent.delete({ where: { id: planted.id } })).rejects.toThrow(/append-only/);
  await env.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
    await tx.auditEvent.delete({ where: { id: planted.id } });
  });
  expect(await scan()).toEqual([]);
});
