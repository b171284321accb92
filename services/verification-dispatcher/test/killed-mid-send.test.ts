// Risk: a code sent twice for one start. A dispatcher killed while the SMS
// provider is taking the message leaves its job to BullMQ's stalled check,
// which gives it to the next dispatcher; that one must not send the code
// again (the provider may well have sent it). Dispatchers are real processes,
// SIGKILLed; the provider is the Termii stand-in over HTTP.
import { createRedis, enqueue, openQueue } from '@cowrie/core';
import { createWorkspaceWithKey, spawnServiceProcess, waitFor, type ServiceProcess, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import { createVerification, verificationJobId, verificationsQueue } from '@cowrie/verification';
import { startTermiiStandIn, type TermiiStandIn } from '@cowrie/verification/testing';

let env: TestEnv;
let termii: TermiiStandIn;
let workerEnv: Record<string, string>;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  // Every message is taken at once and answered 1.5 s later: the window a kill lands in.
  termii = await startTermiiStandIn(() => ({ delayMs: 1500 }));
  workerEnv = {
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: 'termii-key-killed-mid-send',
    VERIFY_TERMII_BASE_URL: termii.url,
    VERIFY_PROVIDER_TIMEOUT_MS: '5000',
    VERIFY_JOB_LOCK_MS: '1000',
    SHUTDOWN_GRACE_MS: '200',
  };
  env = await createTestEnv(workerEnv);
});
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await termii.close();
  await env.cleanup();
});

function startDispatcher() {
  const worker = spawnServiceProcess(env.config, 'verification-dispatcher', workerEnv);
  workers.push(worker);
  return worker;
}

test('killed while the provider takes the message: the next dispatcher does not send the code again', async () => {
  const { workspaceId } = await createWorkspaceWithKey(env.db);
  const destination = '+2348031110001';
  const { verification, sealedCode } = await createVerification(env.sql, env.config, { workspaceId, mode: 'live', channel: 'sms', destination });
  const connection = createRedis(env.config, { forBullmq: true });
  const queue = openQueue(verificationsQueue, { connection, prefix: env.config.QUEUE_PREFIX });
  try {
    await enqueue(
      queue,
      verificationsQueue,
      'verification.deliver',
      { verificationId: verification.id, sealedCode },
      { jobId: verificationJobId(verification) },
    );
    const first = startDispatcher();
    await waitFor(() => termii.delivered.length === 1, 30_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;

    // The next dispatcher finds the job stalled and takes it up.
    const second = startDispatcher();
    const job = (await queue.getJob(verificationJobId(verification)))!;
    await waitFor(async () => ['completed', 'failed'].includes(await job.getState()), 30_000, 50);
    expect((await queue.getJob(job.id!))!.returnvalue).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
    const row = await env.db.verification.findUniqueOrThrow({ where: { id: verification.id } });
    expect(termii.delivered.map((m) => m.body.to)).toEqual(['2348031110001']);
    // The code may have arrived: the verification stays open for it.
    expect(row.status).toBe('pending');
    expect(row.deliveryError).toBeNull();
    second.child.kill('SIGTERM');
    await second.exited;
  } finally {
    await queue.close();
    connection.disconnect();
  }
});
