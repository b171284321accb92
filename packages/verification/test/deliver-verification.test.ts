// Risk: a replayed delivery job sending a code twice or reviving a checked
// verification; a job that cannot be read leaving the row pending forever.
import { encryptSecret } from '@cowrie/core';
import { createWorkspaceWithKey, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { checkVerification } from '../src/check-verification';
import { createVerification } from '../src/create-verification';
import { deliverVerification } from '../src/deliver-verification';
import { createDeliveryProviders, readSandboxMessages, sandboxOutbox } from '../src/providers';
import { readVoiceCode } from '../src/voice-copy';

let env: TestEnv;
let workspaceId: number;

beforeAll(async () => {
  env = await createTestEnv({ VERIFY_CODE_TTL_SECONDS: '60' });
  workspaceId = (await createWorkspaceWithKey(env.db)).workspace.id;
});
afterAll(() => env.cleanup());

const deps = () => ({ sql: env.sql, redis: env.redis, config: env.config, providers: createDeliveryProviders(env.config, env.redis), log: env.logger });
const messages = (destination: string) => readSandboxMessages(sandboxOutbox(env.redis, env.config), destination);

async function started(destination: string, channel: 'sms' | 'voice' | 'email' = 'sms', now?: Date) {
  return createVerification(env.sql, env.config, { workspaceId, mode: 'live', channel, destination, code: '246810', now });
}

test('delivers once; a replayed job sends nothing more', async () => {
  const { verification, sealedCode } = await started('+2348090000001');
  expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'sent', provider: 'sandbox' });
  expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'skipped', status: 'pending' });
  expect(await messages('+2348090000001')).toHaveLength(1);
  const row = await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } });
  expect(row.deliveredAt).toBeInstanceOf(Date);
  expect(row.providerReference).toBe((await messages('+2348090000001'))[0]!.id);
});

test('a verification already checked or failed is not delivered', async () => {
  const { verification, sealedCode } = await started('+2348090000002');
  await env.db.verification.update({ where: { id: verification.id }, data: { status: 'verified' } });
  expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'skipped', status: 'verified' });
  expect(await messages('+2348090000002')).toEqual([]);
});

test('a code that expired before its job ran is not delivered', async () => {
  const { verification, sealedCode } = await started('+2348090000003', 'sms', new Date(Date.now() - 61_000));
  expect((await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).kind).toBe('skipped');
  expect(await messages('+2348090000003')).toEqual([]);
});

test('a job sealed under another key fails the row instead of leaving it pending', async () => {
  const { verification } = await started('+2348090000004');
  const foreign = encryptSecret('246810', 'ab'.repeat(32));
  expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode: foreign })).toEqual({
    kind: 'failed',
    reason: 'the code could not be unsealed',
  });
  expect(await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } })).toMatchObject({
    status: 'failed',
    deliveryError: 'the code could not be unsealed',
  });
  expect(await messages('+2348090000004')).toEqual([]);
});

test('a voice delivery keeps the plaintext in Redis with a TTL no longer than the code lives', async () => {
  const { verification, sealedCode } = await started('+2348090000005', 'voice');
  await deliverVerification(deps(), { verificationId: verification.id, sealedCode });
  expect(await readVoiceCode(env.redis, env.config, verification.reference)).toBe('246810');
  const ttl = await env.redis.ttl(`${env.config.REDIS_KEY_PREFIX}verify:voice:${verification.reference}`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60);
});

test('two runs of one job in the same turn (a stalled job taken up again beside its first run): the code is sent once', async () => {
  for (const [destination, channel] of [
    ['+2348090000031', 'sms'],
    ['+2348090000032', 'voice'],
  ] as const) {
    const { verification, sealedCode } = await started(destination, channel);
    const outcomes = await Promise.all([1, 2].map(() => deliverVerification(deps(), { verificationId: verification.id, sealedCode })));
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['sent', 'skipped']);
    expect(await messages(destination)).toHaveLength(1);
  }
});

test('the claim reads the row: a delivery of a row another run claimed, or that expired, sends nothing', async () => {
  const { verification, sealedCode } = await started('+2348090000033');
  await env.db.verification.update({ where: { id: verification.id }, data: { sendStartedAt: new Date() } });
  expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
  const late = await started('+2348090000034');
  const later = () => new Date(Date.now() + 120_000);
  expect(await deliverVerification({ ...deps(), now: later }, { verificationId: late.verification.id, sealedCode: late.sealedCode })).toEqual({
    kind: 'skipped',
    status: 'expired',
  });
  expect(await messages('+2348090000033')).toEqual([]);
  expect(await messages('+2348090000034')).toEqual([]);
});

test('a delivery failure marks the row failed with a reason, and is not redone', async () => {
  const { verification, sealedCode } = await started('+2340000000000');
  const outcome = await deliverVerification(deps(), { verificationId: verification.id, sealedCode });
  expect(outcome).toEqual({ kind: 'failed', reason: 'the sandbox number is unreachable' });
  expect(await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } })).toMatchObject({
    status: 'failed',
    deliveryError: 'the sandbox number is unreachable',
    deliveredAt: null,
  });
  expect((await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).kind).toBe('skipped');
});

test('starts and deliveries arriving together each get their own row, code and message', async () => {
  const destinations = ['+2348090000011', '+2348090000012', 'together@example.com', '+2348090000013'];
  const codes = ['1111', '2222', '3333', '4444'];
  const created = await Promise.all(
    destinations.map((destination, i) =>
      createVerification(env.sql, env.config, {
        mode: 'live',
        workspaceId,
        channel: destination.includes('@') ? 'email' : 'sms',
        destination,
        code: codes[i],
        metadata: { order: i },
      }),
    ),
  );
  expect(new Set(created.map((c) => c.verification.reference)).size).toBe(4);
  const outcomes = await Promise.all(
    created.map(({ verification, sealedCode }) => deliverVerification(deps(), { verificationId: verification.id, sealedCode })),
  );
  expect(outcomes.every((o) => o.kind === 'sent')).toBe(true);
  for (const [i, destination] of destinations.entries()) {
    const row = await env.db.verification.findUniqueOrThrow({ where: { id: created[i]!.verification.id } });
    expect(row).toMatchObject({ destination, status: 'pending', metadata: { order: i } });
    expect(row.deliveredAt).toBeInstanceOf(Date);
    const sent = await messages(destination);
    expect(sent.map((m) => [m.code, m.reference])).toEqual([[codes[i], row.reference]]);
    expect(row.providerReference).toBe(sent[0]!.id);
  }
});

test('a start that cannot be stored fails alone; the others arriving with it are stored once', async () => {
  const start = (destination: string, ws: number) =>
    createVerification(env.sql, env.config, { workspaceId: ws, mode: 'live', channel: 'sms', destination, code: '5555' });
  const [good, bad, alsoGood] = await Promise.allSettled([
    start('+2348090000021', workspaceId),
    // Out of the column's range: the statement the batch shares fails.
    start('+2348090000022', 2 ** 31),
    start('+2348090000023', workspaceId),
  ]);
  expect(good.status).toBe('fulfilled');
  expect(alsoGood.status).toBe('fulfilled');
  expect(bad.status).toBe('rejected');
  const stored = await env.db.verification.findMany({ where: { destination: { in: ['+2348090000021', '+2348090000022', '+2348090000023'] } } });
  expect(stored.map((r) => r.destination).sort()).toEqual(['+2348090000021', '+2348090000023']);
});

/**
 * A trigger in this test's database that refuses the UPDATE marking the code
 * to `destination` delivered: its first `times` tries (all of them when
 * `times` is null), as a statement timeout or a failover would.
 */
async function refuseDeliveredMark(destination: string, times: number | null) {
  const name = `refuse_mark_${destination.replace(/\D/g, '')}`;
  await env.sql.query(`
    CREATE SEQUENCE ${name}_tries;
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW."deliveredAt" IS NOT NULL AND OLD."deliveredAt" IS NULL AND NEW."destination" = '${destination}'
        AND (${times ?? 'NULL'}::int IS NULL OR nextval('${name}_tries') <= ${times ?? 0}) THEN
        RAISE EXCEPTION 'delivered mark refused for the test';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER ${name} BEFORE UPDATE ON "Verification" FOR EACH ROW EXECUTE FUNCTION ${name}();`);
  return () => env.sql.query(`DROP TRIGGER ${name} ON "Verification"; DROP FUNCTION ${name}(); DROP SEQUENCE ${name}_tries`);
}

test('a delivered mark that fails once is written again: sent, the row delivered', async () => {
  const destination = '+2348090000041';
  const allow = await refuseDeliveredMark(destination, 1);
  try {
    const { verification, sealedCode } = await started(destination);
    expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'sent', provider: 'sandbox' });
    const row = await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } });
    expect(row).toMatchObject({ status: 'pending', deliveryError: null, providerReference: (await messages(destination))[0]!.id });
    expect(row.deliveredAt).toBeInstanceOf(Date);
    expect(await messages(destination)).toHaveLength(1);
  } finally {
    await allow();
  }
});

test('a code the provider accepted whose delivered mark cannot be written: not failed, outcome unknown, not sent again, checkable', async () => {
  const destination = '+2348090000042';
  const allow = await refuseDeliveredMark(destination, null);
  let allowed = false;
  try {
    const { verification, sealedCode } = await started(destination);
    expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
    const row = await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } });
    expect(row).toMatchObject({ status: 'pending', deliveryError: null, deliveredAt: null });
    expect(row.sendStartedAt).toBeInstanceOf(Date);
    expect(await deliverVerification(deps(), { verificationId: verification.id, sealedCode })).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
    expect(await messages(destination)).toHaveLength(1);

    await allow();
    allowed = true;
    const check = await checkVerification(
      { sql: env.sql, redis: env.redis, keyPrefix: env.config.REDIS_KEY_PREFIX },
      { workspaceId, reference: verification.reference, code: (await messages(destination))[0]!.code },
    );
    expect(check).toEqual({ status: 'verified' });
  } finally {
    if (!allowed) await allow();
  }
});
