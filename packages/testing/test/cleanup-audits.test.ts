// Risk: an audit a package gives createTestEnv (the ledger's, in every package
// that can move money) does not fail the cleanup when it finds something, is
// skipped after another audit failed, or leaves the file's database behind.
import { createTestEnv, type CleanupAudit, type TestEnv } from '../src';

const databaseExists = async (probe: TestEnv, name: string) =>
  (await probe.db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM pg_database WHERE datname = ${name}`)[0]!.n > 0n;

let probe: TestEnv;
beforeAll(async () => {
  probe = await createTestEnv();
});
afterAll(() => probe.cleanup());

test('an audit that finds something fails the cleanup with its error; the database and the keys are gone all the same', async () => {
  const found = new Error('the widgets this test file left behind are broken');
  const seen: string[] = [];
  const widgets: CleanupAudit = {
    name: 'widgets',
    run: async ({ id }) => {
      seen.push(id);
      throw found;
    },
  };
  const env = await createTestEnv({}, { audits: [widgets] });
  await env.redis.set(`${env.config.REDIS_KEY_PREFIX}left`, '1');
  const name = new URL(env.config.DATABASE_URL).pathname.slice(1);

  await expect(env.cleanup()).rejects.toBe(found);
  expect(seen).toEqual([env.id]);
  expect(await databaseExists(probe, name)).toBe(false);
  expect(await probe.redis.exists(`${env.config.REDIS_KEY_PREFIX}left`)).toBe(0);
});

test('every audit runs in order even when an earlier one failed, and both failures are reported', async () => {
  const ran: string[] = [];
  const failing = (name: string): CleanupAudit => ({
    name,
    run: async () => {
      ran.push(name);
      throw new Error(`${name} found something`);
    },
  });
  const passing: CleanupAudit = { name: 'quiet', run: async () => void ran.push('quiet') };
  const env = await createTestEnv({}, { audits: [failing('first'), passing, failing('second')] });

  const cleanup = env.cleanup();
  await expect(cleanup).rejects.toBeInstanceOf(AggregateError);
  await expect(cleanup).rejects.toThrow(/first found something[\s\S]*second found something/);
  expect(ran).toEqual(['first', 'quiet', 'second']);
});

test('an env without audits cleans up quietly', async () => {
  const env = await createTestEnv();
  await expect(env.cleanup()).resolves.toBeUndefined();
});
