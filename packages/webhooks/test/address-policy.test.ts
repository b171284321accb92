// Risk: a webhook URL turns the sender into a proxy to internal services or the
// cloud metadata endpoint (SSRF), through an IP literal, an IPv6 spelling or a
// host name that resolves inward.
import { parseCidr } from '@cowrie/core';
import { AddressRefusedError, createAddressPolicy } from '../src/address-policy';
import { createGuardedLookup, resolveAllowedAddresses, type Resolver } from '../src/guarded-lookup';
import { assertWebhookUrlAllowed } from '../src/endpoints';

const strict = createAddressPolicy([]);

test.each([
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.10', 'private'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'shared (CGNAT)'],
  ['100.100.100.200', 'shared (CGNAT)'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fe80::1%eth0', 'link-local'],
  ['fd00:ec2::254', 'private (unique local, cloud metadata)'],
  ['fc00::1', 'private (unique local, cloud metadata)'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
  ['::ffff:10.0.0.1', 'private'],
  ['64:ff9b::a00:1', 'private'],
  ['2002:c0a8:0101::1', 'private'],
  ['::127.0.0.1', 'loopback'],
])('%s is refused (%s)', (address, reason) => {
  expect(strict.check(address)).toEqual({ kind: 'refused', reason });
});

test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s is allowed', (address) => {
  expect(strict.check(address)).toEqual({ kind: 'allowed' });
});

test('anything that is not an IP address is refused', () => {
  expect(strict.check('example.com').kind).toBe('refused');
  expect(strict.check('1.2.3.256').kind).toBe('refused');
  expect(strict.check('').kind).toBe('refused');
});

test('WEBHOOK_ALLOWED_CIDRS lets listed ranges through, IPv4-mapped spellings included', () => {
  const dev = createAddressPolicy(['127.0.0.0/8', 'fd12:3456::/32', '10.9.0.0/16']);
  expect(dev.check('127.0.0.1').kind).toBe('allowed');
  expect(dev.check('::ffff:127.0.0.1').kind).toBe('allowed');
  expect(dev.check('fd12:3456::9').kind).toBe('allowed');
  expect(dev.check('10.9.200.1').kind).toBe('allowed');
  expect(dev.check('10.10.0.1').kind).toBe('refused');
  expect(dev.check('::1').kind).toBe('refused');
  expect(dev.check('169.254.169.254').kind).toBe('refused');
});

test('malformed CIDRs are refused', () => {
  for (const bad of ['127.0.0.0/33', 'nope', '10.0.0.0/8/1', '::1/129', '300.0.0.0/8', '']) expect(() => parseCidr(bad)).toThrow(/not a CIDR/);
  expect(() => createAddressPolicy(['127.0.0.0/8', 'x'])).toThrow(/not a CIDR/);
  expect(parseCidr('10.1.2.3/8')).toMatchObject({ family: 4, bits: 8 });
});

const fixed =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('a host name is refused when every address it resolves to is refused', async () => {
  await expect(resolveAllowedAddresses('internal.example', strict, fixed('10.0.0.5', 'fd00::1'))).rejects.toBeInstanceOf(AddressRefusedError);
});

test('only allowed addresses are handed to the connection, so it is pinned to a checked IP', async () => {
  const addresses = await resolveAllowedAddresses('mixed.example', strict, fixed('10.0.0.5', '93.184.216.34', '::1'));
  expect(addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);

  const lookup = createGuardedLookup(strict, fixed('169.254.169.254', '93.184.216.34'));
  const single = await new Promise((resolve, reject) =>
    lookup('mixed.example', {}, (err, address, family) => (err ? reject(err) : resolve({ address, family }))),
  );
  expect(single).toEqual({ address: '93.184.216.34', family: 4 });
  const all = await new Promise((resolve, reject) => lookup('mixed.example', { all: true }, (err, address) => (err ? reject(err) : resolve(address))));
  expect(all).toEqual([{ address: '93.184.216.34', family: 4 }]);
  const refused = await new Promise((resolve) => createGuardedLookup(strict, fixed('127.0.0.1'))('loop.example', { all: true }, (err) => resolve(err)));
  expect(refused).toBeInstanceOf(AddressRefusedError);
});

test('creation refuses URLs whose IP literal or resolved host name is refused', async () => {
  for (const url of [
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'https://[::1]:8443/',
    'http://[::ffff:7f00:1]/',
    'http://0.0.0.0:80/',
  ]) {
    await expect(assertWebhookUrlAllowed(url, { policy: strict })).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'url' } });
  }
  // `localhost` resolves through the system resolver (/etc/hosts) to loopback only.
  await expect(assertWebhookUrlAllowed('http://localhost:9/hook', { policy: strict })).rejects.toMatchObject({ code: 'invalid_request' });
  await expect(assertWebhookUrlAllowed('https://hooks.example/x', { policy: strict, resolver: fixed('10.2.3.4') })).rejects.toMatchObject({
    code: 'invalid_request',
  });
  await expect(assertWebhookUrlAllowed('https://hooks.example/x', { policy: strict, resolver: fixed('93.184.216.34') })).resolves.toBeUndefined();
  // Not resolvable yet: accepted; each delivery checks the address it connects to.
  const unresolvable: Resolver = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  await expect(assertWebhookUrlAllowed('https://not-yet.example/x', { policy: strict, resolver: unresolvable })).resolves.toBeUndefined();
  await expect(assertWebhookUrlAllowed('http://127.0.0.1:9/x', { policy: createAddressPolicy(['127.0.0.0/8']) })).resolves.toBeUndefined();
});
