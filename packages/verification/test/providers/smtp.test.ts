// Risk: email codes not reaching a real SMTP server, or a refusal reported as a
// success; a server's failure text leaking the code.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createSmtpProvider } from '../../src/providers/smtp';
import { DeliveryError } from '../../src/providers/types';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

let server: SMTPServer;
let url: string;
const received: Received[] = [];

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === 'nobody@example.com') {
        const err = Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 });
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const message = { channel: 'email' as const, destination: 'ada@example.com', code: '739104', reference: 'ref-1', validForMinutes: 5 };

test('a code is delivered over SMTP to the destination, from the configured sender', async () => {
  const provider = createSmtpProvider({ url, from: 'Cowrie <codes@cowrie.test>', timeoutMs: 3000 });
  const receipt = await provider.send(message);
  await provider.close?.();
  expect(provider.id).toBe('smtp');
  expect(receipt.providerReference).toMatch(/@/);
  const mail = received.at(-1)!;
  expect(mail.to).toEqual(['ada@example.com']);
  expect(mail.from).toBe('codes@cowrie.test');
  expect(mail.raw).toMatch(/Subject: Your verification code/);
  expect(mail.raw).toContain('Your verification code is 739104.');
  expect(mail.raw).toContain('expires in 5 minutes');
});

test('a recipient the server refuses is a DeliveryError naming the SMTP status, without the code', async () => {
  const provider = createSmtpProvider({ url, from: 'codes@cowrie.test', timeoutMs: 3000 });
  const err = await provider.send({ ...message, destination: 'nobody@example.com' }).catch((e: unknown) => e);
  await provider.close?.();
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toBe('mail server answered 550');
  expect((err as Error).message).not.toContain('739104');
});

test('an unreachable server is a DeliveryError, not a crash', async () => {
  const provider = createSmtpProvider({ url: 'smtp://127.0.0.1:1', from: 'codes@cowrie.test', timeoutMs: 1000 });
  const err = await provider.send(message).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).toMatch(/^mail server unreachable/);
});

test('the smtp provider refuses phone channels', async () => {
  const provider = createSmtpProvider({ url, from: 'codes@cowrie.test', timeoutMs: 1000 });
  await expect(provider.send({ ...message, channel: 'sms', destination: '+2348012345678' })).rejects.toBeInstanceOf(DeliveryError);
});

test("the dashboard's own emails (a subject and a text) go through the same SMTP provider", async () => {
  const provider = createSmtpProvider({ url, from: 'Cowrie <codes@cowrie.test>', timeoutMs: 3000 });
  const receipt = await provider.sendEmail({
    to: 'ada@example.com',
    subject: 'Reset your password',
    text: 'Open https://pay.example.com/x',
    kind: 'password_reset',
  });
  expect(receipt.providerReference).toMatch(/@/);
  const mail = received.at(-1)!;
  expect(mail.to).toEqual(['ada@example.com']);
  expect(mail.raw).toMatch(/Subject: Reset your password/);
  expect(mail.raw).toContain('Open https://pay.example.com/x');
  const refused = provider.sendEmail({
    to: 'nobody@example.com',
    subject: 'Reset your password',
    text: 'Open https://pay.example.com/y',
    kind: 'password_reset',
  });
  await expect(refused).rejects.toBeInstanceOf(DeliveryError);
  await expect(refused).rejects.toThrow('mail server answered 550');
  await provider.close?.();
});
