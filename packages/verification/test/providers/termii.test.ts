// Risk: the Termii adapter drifting from the documented API (paths, fields,
// number format), or reporting a refused or hung request as delivered.
import { startTermiiStandIn, type TermiiStandIn, type TermiiReply } from '../../testing';
import { createTermiiProvider } from '../../src/providers/termii';
import { DeliveryError } from '../../src/providers/types';

let termii: TermiiStandIn;
let baseUrl: string;
let reply: () => TermiiReply = () => ({});
const seen = () => termii.requests;

beforeAll(async () => {
  termii = await startTermiiStandIn(() => reply());
  baseUrl = termii.url;
});
afterAll(() => termii.close());

const provider = (timeoutMs = 2000) => createTermiiProvider({ apiKey: 'termii-test-key', baseUrl, senderId: 'Cowrie', smsChannel: 'dnd', timeoutMs });
const sms = { channel: 'sms' as const, destination: '+2348012345678', code: '5521', reference: 'r1', validForMinutes: 5 };

test('sms: POST /api/sms/send with the documented fields, number without +', async () => {
  reply = () => ({ status: 200, body: { code: 'ok', message_id: '9122821270554876574', message: 'Successfully Sent', balance: 9, user: 'Cowrie' } });
  const receipt = await provider().send(sms);
  expect(receipt).toEqual({ providerReference: '9122821270554876574' });
  const req = seen().at(-1)!;
  expect(req.method).toBe('POST');
  expect(req.path).toBe('/api/sms/send');
  expect(req.body).toEqual({
    api_key: 'termii-test-key',
    to: '2348012345678',
    from: 'Cowrie',
    sms: 'Your verification code is 5521. It expires in 5 minutes. Do not share it with anyone.',
    type: 'plain',
    channel: 'dnd',
  });
});

test('voice: POST /api/sms/otp/call with phone_number and the numeric code', async () => {
  reply = () => ({ status: 200, body: { code: 'ok', message_id: '4531', message: 'Successfully Sent' } });
  const receipt = await provider().send({ ...sms, channel: 'voice', code: '93817' });
  expect(receipt).toEqual({ providerReference: '4531' });
  const req = seen().at(-1)!;
  expect(req.path).toBe('/api/sms/otp/call');
  expect(req.body).toEqual({ api_key: 'termii-test-key', phone_number: '2348012345678', code: 93817 });
});

test('voice: a code with a leading zero keeps it', async () => {
  reply = () => ({ status: 200, body: { code: 'ok', message_id: '1' } });
  await provider().send({ ...sms, channel: 'voice', code: '0427' });
  expect(seen().at(-1)!.body.code).toBe('0427');
});

test("a non-2xx answer is a DeliveryError with Termii's message, never the code or key", async () => {
  reply = () => ({ status: 400, body: { message: 'Insufficient balance' } });
  const err = await provider()
    .send(sms)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toBe('termii answered 400 (Insufficient balance)');
  expect((err as Error).message).not.toMatch(/5521|termii-test-key/);
});

test.each([
  ['a non-2xx answer', 400, (text: string) => ({ message: text })],
  ['a 200 whose code is not ok', 200, (text: string) => ({ code: 'error', message: text })],
])('%s that echoes the message has the code taken out before the text is shortened: no part of it is left', async (_name, status, body) => {
  // The code straddles the 120th character of Termii's text.
  const echoed = `${'A'.repeat(92)}Your verification code is 5521. It expires in 5 minutes.`;
  expect(echoed.indexOf('5521')).toBe(118);
  reply = () => ({ status, body: body(echoed) });
  const err = (await provider()
    .send(sms)
    .catch((e: unknown) => e)) as Error;
  expect(err).toBeInstanceOf(DeliveryError);
  // The quote ends inside the placeholder; no digit of the code is before it.
  expect(err.message).toMatch(/code is \[c/);
  expect(err.message).not.toMatch(/code is \d|5521/);
});

test('a 200 whose code is not ok is a refusal', async () => {
  reply = () => ({ status: 200, body: { code: 'error', message: 'Invalid sender id' } });
  await expect(provider().send(sms)).rejects.toThrow('termii refused the message (Invalid sender id)');
});

test('a hung request times out as a DeliveryError, after one attempt only', async () => {
  reply = () => 'hang';
  const before = seen().length;
  const err = await provider(300)
    .send(sms)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toMatch(/^termii unreachable/);
  expect(seen().length - before).toBe(1);
});

test('email is not a Termii channel', async () => {
  await expect(provider().send({ ...sms, channel: 'email', destination: 'a@b.co' })).rejects.toBeInstanceOf(DeliveryError);
});
