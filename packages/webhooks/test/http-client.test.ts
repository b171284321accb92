// Risk: a delivery connects somewhere other than the address that was checked
// (DNS answering differently the second time), reaches a refused address
// through a host name, or follows a redirect inward.
import { startHttpReceiver, type HttpReceiver } from '@cowrie/testing';
import { createAddressPolicy } from '../src/address-policy';
import type { Resolver } from '../src/guarded-lookup';
import { createWebhookHttpClient, type WebhookHttpClient } from '../src/http-client';

let receiver: HttpReceiver;
let calls: string[];
let client: WebhookHttpClient;

const zone: Record<string, string[]> = {
  'hooks.example.test': ['10.0.0.7', '127.0.0.1'],
  'inward.example.test': ['10.0.0.7', '169.254.169.254'],
};
const resolver: Resolver = async (host) => {
  calls.push(host);
  const addresses = zone[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: 4 }));
};

beforeAll(async () => {
  receiver = await startHttpReceiver((req) => (req.path === '/redirect' ? { status: 301, headers: { location: '/landed' } } : { status: 200 }));
  client = createWebhookHttpClient({ timeoutMs: 1000, policy: createAddressPolicy(['127.0.0.0/8']), resolver });
});
beforeEach(() => {
  calls = [];
  receiver.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await receiver.close();
});

const post = (url: string) => client.post(url, Buffer.from('{}'), { 'content-type': 'application/json' });

test('a host name connects to the checked address it resolved to, keeping its Host header', async () => {
  const result = await post(`http://hooks.example.test:${receiver.port}/pinned`);
  expect(result).toEqual({ kind: 'response', statusCode: 200, bodyExcerpt: '' });
  expect(calls).toEqual(['hooks.example.test']);
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]!.headers.host).toBe(`hooks.example.test:${receiver.port}`);
});

test('a host name resolving only to refused addresses is refused before any connection', async () => {
  const result = await post(`http://inward.example.test:${receiver.port}/x`);
  expect(result.kind).toBe('refused');
  expect(result).toMatchObject({ error: expect.stringMatching(/inward\.example\.test resolves to 10\.0\.0\.7, a private address/) });
  expect(receiver.requests).toHaveLength(0);
});

test('refused IP literals never reach the network', async () => {
  for (const url of ['http://10.0.0.7/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://[::ffff:a9fe:a9fe]/']) {
    expect(await post(url)).toMatchObject({ kind: 'refused' });
  }
  expect(calls).toEqual([]);
});

test('redirects are not followed: a 3xx is the answer', async () => {
  expect(await post(`${receiver.url}/redirect`)).toEqual({ kind: 'response', statusCode: 301, bodyExcerpt: '' });
  expect(receiver.requests.map((r) => r.path)).toEqual(['/redirect']);
});

test('an unknown host is a network error', async () => {
  expect(await post('http://nowhere.example.test/x')).toMatchObject({ kind: 'network_error', error: expect.stringMatching(/ENOTFOUND/) });
});
