// Risk: the sandbox sending for real-looking failures, forgetting messages a
// developer needs, or keeping them forever.
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createSandboxProvider, readSandboxMessages, sandboxOutbox, SANDBOX_MESSAGES_KEPT } from '../../src/providers/sandbox';
import { DeliveryError } from '../../src/providers/types';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const outbox = () => sandboxOutbox(env.redis, env.config);

test('messages are kept per destination, newest first, with a TTL', async () => {
  const sandbox = createSandboxProvider({ outbox: outbox(), retentionSeconds: 120 });
  await sandbox.send({ channel: 'sms', destination: '+2348011111111', code: '1111', reference: 'a', validForMinutes: 5 });
  await sandbox.send({ channel: 'voice', destination: '+2348011111111', code: '2222', reference: 'b', validForMinutes: 5 });
  await sandbox.send({ channel: 'email', destination: 'x@example.com', code: '3333', reference: 'c', validForMinutes: 5 });
  const messages = await readSandboxMessages(outbox(), '+2348011111111');
  expect(messages.map((m) => [m.channel, m.code, m.reference])).toEqual([
    ['voice', '2222', 'b'],
    ['sms', '1111', 'a'],
  ]);
  expect(messages[0]!.text).toContain('2222');
  const ttl = await env.redis.ttl(`${env.config.REDIS_KEY_PREFIX}sandbox:verify:+2348011111111`);
  expect(ttl).toBeGreaterThan(100);
  expect(ttl).toBeLessThanOrEqual(120);
});

test('a kept message is sealed with ENCRYPTION_KEY: its code is not in Redis in plain text', async () => {
  const sandbox = createSandboxProvider({ outbox: outbox(), retentionSeconds: 60 });
  await sandbox.send({ channel: 'email', destination: 'sealed@example.com', code: '918273', reference: 'sealed', validForMinutes: 5 });
  const [stored] = await env.redis.lrange(`${env.config.REDIS_KEY_PREFIX}sandbox:verify:sealed@example.com`, 0, -1);
  expect(stored).toMatch(/^v1\./);
  expect(stored).not.toContain('918273');
  expect((await readSandboxMessages(outbox(), 'sealed@example.com'))[0]!.code).toBe('918273');
  // Under a rotated ENCRYPTION_KEY the old message cannot be read: it is left out, not an error.
  expect(await readSandboxMessages({ ...outbox(), encryptionKey: 'ab'.repeat(32) }, 'sealed@example.com')).toEqual([]);
});

test(`only the last ${SANDBOX_MESSAGES_KEPT} messages of a destination are kept`, async () => {
  const sandbox = createSandboxProvider({ outbox: outbox(), retentionSeconds: 60 });
  for (let i = 0; i < SANDBOX_MESSAGES_KEPT + 5; i += 1) {
    await sandbox.send({ channel: 'sms', destination: '+2348022222222', code: String(1000 + i), reference: String(i), validForMinutes: 5 });
  }
  const messages = await readSandboxMessages(outbox(), '+2348022222222');
  expect(messages).toHaveLength(SANDBOX_MESSAGES_KEPT);
  expect(messages[0]!.code).toBe(String(1000 + SANDBOX_MESSAGES_KEPT + 4));
});

test.each([
  ['sms', '+2340000000000'],
  ['voice', '+2340000000000'],
  ['email', 'bounce@example.com'],
] as const)('%s to %s fails delivery and records nothing', async (channel, destination) => {
  const sandbox = createSandboxProvider({ outbox: outbox(), retentionSeconds: 60 });
  await expect(sandbox.send({ channel, destination, code: '1234', reference: 'z', validForMinutes: 5 })).rejects.toBeInstanceOf(DeliveryError);
  expect(await readSandboxMessages(outbox(), destination)).toEqual([]);
});
