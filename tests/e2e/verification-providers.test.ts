// Risk: the real providers (SMTP, Termii) not wired through the dispatcher, or
// a provider refusal answered as a success, or a code a provider accepted
// answered and recorded as a refusal.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createRedis, enqueue, openQueue } from '@cowrie/core';
import { createWorkspaceWithKey, waitFor } from '@cowrie/testing';
import { readVoiceCode, verificationJobId, verificationsQueue } from '@cowrie/verification';
import { startTermiiStandIn, type TermiiStandIn } from '@cowrie/verification/testing';
import { call } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let key: string;
let smtp: SMTPServer;
let termii: TermiiStandIn;
const mails: Array<{ to: string[]; raw: string }> = [];
let termiiStatus = 200;
const TERMII_KEY = 'tk_live_stand_in_secret';

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _s, cb) {
      cb(address.address === 'gone@example.com' ? Object.assign(new Error('No such user'), { responseCode: 550 }) : null);
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  termii = await startTermiiStandIn(() => (termiiStatus === 200 ? {} : { status: termiiStatus, body: { message: 'Insufficient balance' }, delivered: false }));
  gw = await startVerificationGateway({
    VERIFY_EMAIL_PROVIDER: 'smtp',
    VERIFY_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: TERMII_KEY,
    VERIFY_TERMII_BASE_URL: termii.url,
    VERIFY_PROVIDER_TIMEOUT_MS: '2000',
  });
  key = (await createWorkspaceWithKey(gw.env.db)).key;
});
afterAll(async () => {
  await gw.close();
  await termii.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const start = (body: Record<string, unknown>) => call(gw.url, 'POST', '/v1/verifications', { token: key, body });
const check = (reference: string, code: string) => call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code } });
const read = (reference: string) => call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: key });

test('email over SMTP: the mail carries the code, which verifies; provider smtp', async () => {
  const res = await start({ channel: 'email', destination: 'Grace@Example.com' });
  expect(res.status).toBe(201);
  const mail = mails.at(-1)!;
  expect(mail.to).toEqual(['grace@example.com']);
  const code = /verification code is (\d{4})\./.exec(mail.raw)?.[1];
  expect(code).toMatch(/^\d{4}$/);
  expect((await check(res.body.data.reference, code!)).body.data).toEqual({ status: 'verified' });
  expect((await read(res.body.data.reference)).body.data).toMatchObject({ provider: 'smtp', status: 'verified' });
});

test('sms over Termii: the documented request carries the code, which verifies; provider termii', async () => {
  const res = await start({ channel: 'sms', destination: '+2348071234567' });
  expect(res.status).toBe(201);
  const sent = termii.requests.at(-1)!;
  expect(sent.path).toBe('/api/sms/send');
  expect(sent.body).toMatchObject({ to: '2348071234567', api_key: TERMII_KEY, type: 'plain' });
  const code = /verification code is (\d{4})\./.exec(String(sent.body.sms))?.[1];
  expect((await check(res.body.data.reference, code!)).body.data).toEqual({ status: 'verified' });
  expect((await read(res.body.data.reference)).body.data).toMatchObject({ provider: 'termii', status: 'verified' });
});

test('voice over Termii: /api/sms/otp/call with the code, and the short-lived Redis copy', async () => {
  const res = await start({ channel: 'voice', destination: '+2348071234568', code: '51515151' });
  expect(res.status).toBe(201);
  const sent = termii.requests.at(-1)!;
  expect(sent.path).toBe('/api/sms/otp/call');
  expect(sent.body).toEqual({ api_key: TERMII_KEY, phone_number: '2348071234568', code: 51515151 });
  expect(await readVoiceCode(gw.env.redis, gw.env.config, res.body.data.reference)).toBe('51515151');
});

test('a Termii refusal: 400 Could not deliver the code, row failed, voice copy dropped', async () => {
  termiiStatus = 400;
  try {
    const res = await start({ channel: 'voice', destination: '+2348071234569', code: '62626262' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Could not deliver the code: termii answered 400 (Insufficient balance)');
    const reference = res.body.error.details.reference;
    expect((await read(reference)).body.data).toMatchObject({ status: 'failed', provider: 'termii' });
    expect(await readVoiceCode(gw.env.redis, gw.env.config, reference)).toBeNull();
  } finally {
    termiiStatus = 200;
  }
});

test('an SMTP refusal: 400 Could not deliver the code, row failed', async () => {
  const res = await start({ channel: 'email', destination: 'gone@example.com', code: '73737373' });
  expect(res.status).toBe(400);
  expect(res.body.error.message).toBe('Could not deliver the code: mail server answered 550');
  expect((await read(res.body.error.details.reference)).body.data.status).toBe('failed');
});

test('a code Termii accepted whose delivery cannot be recorded: 201 pending, sent once, and it verifies', async () => {
  // The write that marks this one destination's code delivered fails (as a
  // statement timeout or a failover would); the provider has taken the message.
  const destination = '+2348071234570';
  await gw.env.sql.query(`
    CREATE FUNCTION refuse_delivered_mark() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW."deliveredAt" IS NOT NULL AND OLD."deliveredAt" IS NULL AND NEW."destination" = '${destination}' THEN
        RAISE EXCEPTION 'delivered mark refused for the test';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_delivered_mark BEFORE UPDATE ON "Verification" FOR EACH ROW EXECUTE FUNCTION refuse_delivered_mark();`);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await gw.env.sql.query('DROP TRIGGER refuse_delivered_mark ON "Verification"; DROP FUNCTION refuse_delivered_mark()');
  };
  try {
    const res = await start({ channel: 'sms', destination, code: '84848484' });
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('pending');
    const reference = res.body.data.reference;
    const row = await gw.env.db.verification.findUniqueOrThrow({ where: { reference } });
    expect(row).toMatchObject({ status: 'pending', deliveryError: null, deliveredAt: null });
    expect(row.sendStartedAt).toBeInstanceOf(Date);

    // The job is done (not failed, so the gateway marked nothing); a replay sends nothing more.
    const connection = createRedis(gw.env.config, { forBullmq: true });
    const queue = openQueue(verificationsQueue, { connection, prefix: gw.env.config.QUEUE_PREFIX });
    try {
      const job = (await queue.getJob(verificationJobId(row)))!;
      expect(await job.getState()).toBe('completed');
      expect(job.returnvalue).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
      await enqueue(queue, verificationsQueue, 'verification.deliver', job.data, { jobId: `${job.id}-replay` });
      const replay = (await queue.getJob(`${job.id}-replay`))!;
      await waitFor(async () => (await replay.getState()) === 'completed');
      expect((await queue.getJob(replay.id!))!.returnvalue).toEqual({ kind: 'skipped', status: 'delivery outcome unknown' });
    } finally {
      await queue.close();
      connection.disconnect();
    }
    expect(termii.delivered.filter((m) => m.body.to === '2348071234570')).toHaveLength(1);

    // Once the database takes writes again, the code the customer received verifies.
    await drop();
    const code = /verification code is (\d+)\./.exec(String(termii.delivered.find((m) => m.body.to === '2348071234570')!.body.sms))?.[1];
    expect(code).toBe('84848484');
    expect((await check(reference, code!)).body.data).toEqual({ status: 'verified' });
    expect((await read(reference)).body.data).toMatchObject({ status: 'verified' });
  } finally {
    await drop();
  }
});

test('neither the provider key nor any code reaches the logs', async () => {
  const logs = gw.env.logLines.join('\n');
  for (const secret of [TERMII_KEY, '51515151', '62626262', '73737373', '84848484']) expect(logs).not.toContain(secret);
});
