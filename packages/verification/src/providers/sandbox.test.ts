// Risk: the sandbox sending for real-looking failures, forgetting messages a
// developer needs, or keeping them forever.
import { createTestEnv, type TestEnv } from '@cowrie/testing';
import { createSandboxProvider, readSandboxMessages, SANDBOX_MESSAGES_KEPT } from './sandbox';
import { DeliveryError } from './types';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

const prefix = () => env.config.REDIS_KEY_PREFIX;

test('messages are kept per destination, newest first, with a TTL', async () => {
  const sandbox = createSandboxProvider({ redis: env.redis, keyPrefix: prefix(), retentionSeconds: 120 });
  await sandbox.send({ channel: 'sms', destination: '+2348011111111', code: '1111', reference: 'a', validForMinutes: 5 });
  await sandbox.send({ channel: 'voice', destination: '+2348011111111', code: '2222', reference: 'b', validForMinutes: 5 });
  await sandbox.send({ channel: 'email', destination: 'x@example.com', code: '3333', reference: 'c', validForMinutes: 5 });
  const messages = await readSandboxMessages(env.redis, prefix(), '+2348011111111');
  expect(messages.map((m) => [m.channel, m.code, m.reference])).toEqual([['voice', '2222', 'b'], ['sms', '1111', 'a']]);
  expect(messages[0]!.text).toContain('2222');
  const ttl = await env.redis.ttl(`${prefix()}sandbox:verify:+2348011111111`);
  expect(ttl).toBeGreaterThan(100);
  expect(ttl).toBeLessThanOrEqual(120);
});

test(`only the last ${SANDBOX_MESSAGES_KEPT} messages of a destination are kept`, async () => {
  const sandbox = createSandboxProvider({ redis: env.redis, keyPrefix: prefix(), retentionSeconds: 60 });
  for (let i = 0; i < SANDBOX_MESSAGES_KEPT + 5; i += 1) {
    await sandbox.send({ channel: 'sms', destination: '+2348022222222', code: String(1000 + i), reference: String(i), validForMinutes: 5 });
  }
  const messages = await readSandboxMessages(env.redis, prefix(), '+2348022222222');
  expect(messages).toHaveLength(SANDBOX_MESSAGES_KEPT);
  expect(messages[0]!.code).toBe(String(1000 + SANDBOX_MESSAGES_KEPT + 4));
});

test.each([['sms', '+2340000000000'], ['voice', '+2340000000000'], ['email', 'bounce@example.com']] as const)(
  '%s to %s fails delivery and records nothing',
  async (channel, destination) => {
    const sandbox = createSandboxProvider({ redis: env.redis, keyPrefix: prefix(), retentionSeconds: 60 });
    await expect(sandbox.send({ channel, destination, code: '1234', reference: 'z', validForMinutes: 5 })).rejects.toBeInstanceOf(DeliveryError);
    expect(await readSandboxMessages(env.redis, prefix(), destination)).toEqual([]);
  },
);
