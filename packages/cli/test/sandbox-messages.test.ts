// Risk: a developer unable to read a sandbox code locally, or the command
// printing anything but one JSON object.
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createSandboxProvider, sandboxOutbox } from '@cowrie/verification';
import { runCli } from '../src/run-cli';

let env: TestEnv;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  env = await createTestEnv();
  cliEnv = { NODE_ENV: 'test', DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX };
  const sandbox = createSandboxProvider({ outbox: sandboxOutbox(env.redis, env.config), retentionSeconds: 60 });
  await sandbox.send({ channel: 'sms', destination: '+2348012345678', code: '1357', reference: 'ref-a', validForMinutes: 5 });
  await sandbox.send({ channel: 'email', destination: 'dev@example.com', code: '2468', reference: 'ref-b', validForMinutes: 5 });
  await sandbox.sendEmail({
    to: 'owner@example.com',
    subject: 'Reset your Cowrie dashboard password',
    text: 'Choose a new password here: …',
    kind: 'password_reset',
  });
});
afterAll(() => env.cleanup());

test('prints the sandbox messages of a destination as one JSON object, any phone spelling', async () => {
  for (const spelling of ['+2348012345678', '0801 234 5678']) {
    const out = await runCli(['sandbox', 'messages', '--destination', spelling], cliEnv);
    expect(out.code).toBe(0);
    const parsed = JSON.parse(out.stdout);
    expect(parsed.destination).toBe('+2348012345678');
    expect(parsed.messages).toHaveLength(1);
    expect(parsed.messages[0]).toMatchObject({ channel: 'sms', code: '1357', reference: 'ref-a' });
  }
});

test('emails are matched lowercased; an unknown destination has no messages', async () => {
  const out = await runCli(['sandbox', 'messages', '--destination', 'Dev@Example.com'], cliEnv);
  expect(JSON.parse(out.stdout).messages[0]).toMatchObject({ code: '2468' });
  const none = await runCli(['sandbox', 'messages', '--destination', 'other@example.com'], cliEnv);
  expect(none.code).toBe(0);
  expect(JSON.parse(none.stdout)).toEqual({ destination: 'other@example.com', messages: [] });
});

test("the dashboard's own emails (a password reset, an invitation) are shown with their subject and text", async () => {
  const out = await runCli(['sandbox', 'messages', '--destination', 'owner@example.com'], cliEnv);
  expect(JSON.parse(out.stdout).messages).toEqual([
    expect.objectContaining({
      channel: 'email',
      reference: 'password_reset',
      code: '',
      subject: 'Reset your Cowrie dashboard password',
      text: 'Choose a new password here: …',
      mode: 'live',
    }),
  ]);
});

test('a bad or missing destination is a usage error on stderr', async () => {
  const bad = await runCli(['sandbox', 'messages', '--destination', '+14155552671'], cliEnv);
  expect(bad.code).toBe(2);
  expect(bad.stdout).toBe('');
  expect(bad.stderr).toMatch(/--destination must be a Nigerian phone number/);
  const missing = await runCli(['sandbox', 'messages'], cliEnv);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/missing --destination/);
});
