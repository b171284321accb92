// Risk: "5 per 900 s" letting 10 codes reach one destination (or 40 leave one
// business) in seconds, by straddling a quarter hour; a start one limit
// refuses still counted by the other; the fraud guard's combined step
// answering otherwise than the limits alone.
import { type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { guardAndLimitVerificationStart } from '../src/fraud-guard';
import { hitVerificationLimits, type LimitConfig } from '../src/limits';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

// Two seconds before a quarter hour, where a clock-aligned window would start again.
const T0 = Date.UTC(2026, 10, 28, 5, 59, 58);
let workspace = 0;
const newWorkspace = () => `limits-${++workspace}-${Date.now().toString(36)}`;
const config = (): LimitConfig => ({
  REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX,
  VERIFY_RATE_DEST_LIMIT: 5,
  VERIFY_RATE_BIZ_LIMIT: 20,
  VERIFY_RATE_WINDOW_SECONDS: 900,
});

test.each([
  ['alone', (ws: string, destination: string, now: number) => hitVerificationLimits(env.redis, config(), { workspaceUid: ws, destination, now })],
  [
    'with the fraud guard',
    async (ws: string, destination: string, now: number) => {
      const admitted = await guardAndLimitVerificationStart(
        env.redis,
        { ...config(), VERIFY_FRAUD_GUARD: 'monitor', VERIFY_FRAUD_GUARD_MIN_STARTS: 30, VERIFY_FRAUD_GUARD_MIN_CONVERSION: 0.2 },
        { workspaceUid: ws, channel: 'sms', destination, now },
      );
      if (admitted.kind !== 'judged') throw new Error(`the guard refused: ${JSON.stringify(admitted)}`);
      return admitted.limit;
    },
  ],
])('%s: 5 per destination within any 900 s, a quarter hour straddled included', async (_name, hit) => {
  const ws = newWorkspace();
  const destination = '+2348030016666';
  for (let i = 0; i < 5; i += 1) expect(await hit(ws, destination, T0 + i * 300)).toEqual({ kind: 'allowed' });
  // 06:00:00.250 and on: refused until the first start leaves its 900 s.
  for (const ms of [2_250, 3_000, 899_999]) expect(await hit(ws, destination, T0 + ms)).toMatchObject({ kind: 'refused', reason: 'destination' });
  expect(await hit(ws, destination, T0 + 2_250)).toEqual({ kind: 'refused', reason: 'destination', retryAfterSeconds: 898 });
  expect(await hit(ws, destination, T0 + 900_000)).toEqual({ kind: 'allowed' });
  // The business counted what it let through, not the refusals: five in this window (the first start has left it).
  const others = await Promise.all(Array.from({ length: 20 }, (_, i) => hit(ws, `+23480300${String(20000 + i)}`, T0 + 900_100)));
  expect(others.filter((r) => r.kind === 'allowed')).toHaveLength(15);
  expect(others.filter((r) => r.kind === 'refused' && r.reason === 'business')).toHaveLength(5);
});
