// Risk: the Termii adapter drifting from the documented API (paths, fields,
// number format), or reporting a refused or hung request as delivered.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTermiiProvider } from './termii';
import { DeliveryError } from './types';

interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];
let reply: (req: Seen) => { status: number; body: unknown } | 'hang' = () => ({ status: 200, body: {} });

const readJson = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => resolve(raw ? (JSON.parse(raw) as Record<string, unknown>) : {}));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const entry = { method: req.method ?? '', path: req.url ?? '', body: await readJson(req) };
    seen.push(entry);
    const r = reply(entry);
    if (r === 'hang') return;
    res.writeHead(r.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(r.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const provider = (timeoutMs = 2000) =>
  createTermiiProvider({ apiKey: 'termii-test-key', baseUrl, senderId: 'Cowrie', smsChannel: 'dnd', timeoutMs });
const sms = { channel: 'sms' as const, destination: '+2348012345678', code: '5521', reference: 'r1', validForMinutes: 5 };

test('sms: POST /api/sms/send with the documented fields, number without +', async () => {
  reply = () => ({ status: 200, body: { code: 'ok', message_id: '9122821270554876574', message: 'Successfully Sent', balance: 9, user: 'Cowrie' } });
  const receipt = await provider().send(sms);
  expect(receipt).toEqual({ providerReference: '9122821270554876574' });
  const req = seen.at(-1)!;
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
  const req = seen.at(-1)!;
  expect(req.path).toBe('/api/sms/otp/call');
  expect(req.body).toEqual({ api_key: 'termii-test-key', phone_number: '2348012345678', code: 93817 });
});

test('voice: a code with a leading zero keeps it', async () => {
  reply = () => ({ status: 200, body: { code: 'ok', message_id: '1' } });
  await provider().send({ ...sms, channel: 'voice', code: '0427' });
  expect(seen.at(-1)!.body.code).toBe('0427');
});

test('a non-2xx answer is a DeliveryError with Termii\'s message, never the code or key', async () => {
  reply = () => ({ status: 400, body: { message: 'Insufficient balance' } });
  const err = await provider().send(sms).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toBe('termii answered 400 (Insufficient balance)');
  expect((err as Error).message).not.toMatch(/5521|termii-test-key/);
});

test('a 200 whose code is not ok is a refusal', async () => {
  reply = () => ({ status: 200, body: { code: 'error', message: 'Invalid sender id' } });
  await expect(provider().send(sms)).rejects.toThrow('termii refused the message (Invalid sender id)');
});

test('a hung request times out as a DeliveryError, after one attempt only', async () => {
  reply = () => 'hang';
  const before = seen.length;
  const err = await provider(300).send(sms).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toMatch(/^termii unreachable/);
  expect(seen.length - before).toBe(1);
});

test('email is not a Termii channel', async () => {
  await expect(provider().send({ ...sms, channel: 'email', destination: 'a@b.co' })).rejects.toBeInstanceOf(DeliveryError);
});
