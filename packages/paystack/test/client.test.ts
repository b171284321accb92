// Risk: the one Paystack client both rails use misclassifying a failure (a
// timeout or 5xx after a transfer left reported as "certainly not sent", or the
// reverse), leaking the secret key, retrying on its own, or sending kobo
// through a double. Runs against the local stand-in of Paystack's API.
import { LosslessNumber } from 'lossless-json';
import { RailError } from '@cowrie/core';
import { createPaystackClient, isSuccess } from '../src';
import { startPaystackStandIn, type PaystackStandIn } from '../testing';

const SECRET = 'sk_test_client_secret_0001';
let standIn: PaystackStandIn;
beforeAll(async () => {
  standIn = await startPaystackStandIn({ secret: SECRET });
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.options.mode = 'ok';
});

const client = (over: { secretKey?: string; baseUrl?: string } = {}) =>
  createPaystackClient({ secretKey: SECRET, baseUrl: standIn.url, timeoutMs: 300, keySetting: 'PAYSTACK_TEST_KEY', ...over });

test('sends the Bearer secret and JSON, with kobo as their exact digits, and reads the envelope', async () => {
  const res = await client().request({
    method: 'POST',
    path: 'charge',
    json: { email: 'a@example.com', amount: '12345678901234567', kobo: new LosslessNumber('100000000000000001'), bank_transfer: {} },
  });
  expect(isSuccess(res)).toBe(true);
  expect(res.body).toMatchObject({ status: true, message: 'Charge attempted' });
  const sent = standIn.requests.at(-1)!;
  expect(sent).toMatchObject({ method: 'POST', path: '/charge', authorization: `Bearer ${SECRET}` });
  expect(sent.raw).toContain('"amount":"12345678901234567"');
  expect(sent.raw).toContain('"kobo":100000000000000001');
});

test('an absolute URL as the path is refused before anything is sent: the secret key goes to the base URL only', async () => {
  const receiver = await startPaystackStandIn({ secret: SECRET });
  try {
    const before = receiver.requests.length;
    await expect(client().request({ method: 'GET', path: `${receiver.url}/bank` })).rejects.toThrow(/must be relative/);
    expect(receiver.requests.length).toBe(before);
  } finally {
    await receiver.close();
  }
});

test('a 4xx is answered to the caller, not thrown', async () => {
  const res = await client().request({ method: 'GET', path: 'bank/resolve', searchParams: { account_number: '9999999999', bank_code: '058' } });
  expect(res.statusCode).toBe(422);
  expect(isSuccess(res)).toBe(false);
  expect(res.body.message).toMatch(/Could not resolve/);
});

test.each([true, false])('a 5xx is 502 with the answer kept, maybeSent only for a call that sends (%s), and never retried', async (sends) => {
  standIn.options.mode = 'error_500';
  const before = standIn.requests.length;
  const err = await client()
    .request({ method: 'POST', path: 'charge', json: {}, sends })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RailError);
  expect(err).toMatchObject({
    provider: 'paystack',
    status: 502,
    maybeSent: sends,
    message: 'Paystack failed with HTTP 500: An error occurred',
    raw: { status_code: 500, status: false, message: 'An error occurred' },
  });
  expect(standIn.requests.length - before).toBe(1);
});

test.each([true, false])('no answer within the timeout is 504, maybeSent only for a call that sends (%s)', async (sends) => {
  standIn.options.mode = 'slow';
  const err = await client()
    .request({ method: 'POST', path: 'transfer', json: {}, sends })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RailError);
  expect(err).toMatchObject({ provider: 'paystack', status: 504, maybeSent: sends, message: 'Paystack did not answer within 300 ms' });
});

test('refused credentials are 503 naming the setting, never the key; nothing was sent', async () => {
  const err = await client({ secretKey: 'sk_test_wrong_key' })
    .request({ method: 'POST', path: 'transfer', json: {}, sends: true })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RailError);
  expect(err).toMatchObject({ status: 503, maybeSent: false, message: "Paystack refused Cowrie's credentials; check PAYSTACK_TEST_KEY" });
  expect(JSON.stringify({ ...(err as RailError), message: (err as RailError).message })).not.toContain('sk_test_wrong_key');
});

test('a refused connection is 502 that certainly sent nothing, even for a call that sends', async () => {
  const err = await client({ baseUrl: 'http://127.0.0.1:9' })
    .request({ method: 'POST', path: 'transfer', json: {}, sends: true })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ name: 'RailError', status: 502, maybeSent: false, message: 'Paystack could not be reached (ECONNREFUSED)' });
});

test('an aborted call throws the abort, not a RailError', async () => {
  standIn.options.mode = 'slow';
  const controller = new AbortController();
  const reason = new Error('shutting down');
  setTimeout(() => controller.abort(reason), 50);
  await expect(client().request({ method: 'GET', path: 'bank', signal: controller.signal })).rejects.toBe(reason);
});
