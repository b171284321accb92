// Risk: the gateway hanging or answering wrongly when the dispatcher is slow or
// down: it must answer from the row in Postgres after its bounded wait, and the
// job must still be delivered once a dispatcher runs.
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { readSandboxMessages, sandboxOutbox } from '@cowrie/verification';
import { startVerificationWorker } from '@cowrie/verification-dispatcher';
import { call, startTestGateway } from '@cowrie/gateway/testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ VERIFY_SYNC_WAIT_MS: '200' });
  key = (await createWorkspaceWithKey(gw.env.db)).key;
});
afterAll(() => gw.close());

test('no dispatcher yet: 201 pending from the row after the wait; delivered (or failed) once one runs', async () => {
  const started = Date.now();
  const ok = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination: '+2348012340001' } });
  expect(ok.status).toBe(201);
  expect(ok.body.data.status).toBe('pending');
  expect(Date.now() - started).toBeLessThan(5000);
  const bounced = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'email', destination: 'bounce@example.com' } });
  expect(bounced.status).toBe(201);

  const dispatcher = await startVerificationWorker(gw.env.config, gw.env.logger);
  try {
    const messages = await waitFor(async () => {
      const m = await readSandboxMessages(sandboxOutbox(gw.env.redis, gw.env.config), '+2348012340001');
      return m.length ? m : null;
    });
    expect(messages[0]!.reference).toBe(ok.body.data.reference);
    const failedRow = await waitFor(async () => {
      const row = await gw.env.db.verification.findUniqueOrThrow({ where: { reference: bounced.body.data.reference } });
      return row.status === 'failed' ? row : null;
    });
    expect(failedRow.deliveryError).toMatch(/bounced/);
  } finally {
    await dispatcher.stop();
  }
});
