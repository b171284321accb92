// Risk: the real providers (SMTP, Termii) not wired through the dispatcher, or
// a provider refusal answered as a success.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createWorkspaceWithKey } from '@cowrie/testing';
import { readVoiceCode } from '@cowrie/verification';
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

test('neither the provider key nor any code reaches the logs', async () => {
  const logs = gw.env.logLines.join('\n');
  for (const secret of [TERMII_KEY, '51515151', '62626262', '73737373']) expect(logs).not.toContain(secret);
});
