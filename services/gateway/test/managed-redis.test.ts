// Risk: a deployment (every service connects through @cowrie/core's
// createRedis) on a Sentinel group or a Cluster that requires a password
// and TLS (as managed Redis does) cannot connect, or connects in the clear.
// Real redis-server processes, TLS with a certificate made for the test.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createRedis, loadConfig, type RedisClient } from '@cowrie/core';
import { freePort, waitFor } from '@cowrie/testing';

const dir = mkdtempSync(path.join(tmpdir(), 'cowrie-redis-tls-'));
const file = (name: string) => path.join(dir, name);
const children: ChildProcess[] = [];
const clients: RedisClient[] = [];

const tlsArgs = () => [
  '--tls-cert-file',
  file('cert.pem'),
  '--tls-key-file',
  file('key.pem'),
  '--tls-ca-cert-file',
  file('cert.pem'),
  '--tls-auth-clients',
  'no',
];

/** A redis-server (or Sentinel, with a config file) speaking only TLS on `port`, up when it answers PING. */
async function startTlsServer(args: string[], port: number, password: string): Promise<RedisClient> {
  children.push(spawn('redis-server', args, { stdio: 'ignore' }));
  const probe = createRedis(
    loadConfig({ NODE_ENV: 'test', REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PASSWORD: password, REDIS_TLS_CA_FILE: file('cert.pem') }),
    { name: 'probe' },
  );
  probe.on('error', () => undefined);
  clients.push(probe);
  await waitFor(async () => (await probe.ping().catch(() => null)) === 'PONG', 10_000, 50);
  return probe;
}

const base = { NODE_ENV: 'test', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: file('cert.pem'), REDIS_PASSWORD: 'node-password-1' };
/** The first error a client reports (an auth refusal, a failed handshake), or a timeout. */
function firstError(client: RedisClient): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('no error within 3 s'), 3000);
    const report = (err: Error) => {
      clearTimeout(timer);
      resolve(err.message);
    };
    client.once('error', report);
    client.once('node error', report);
  });
}

const connect = (env: Record<string, string>) => {
  const config = { ...base, ...env };
  if (config.REDIS_TLS_CA_FILE === '') delete (config as Partial<typeof config>).REDIS_TLS_CA_FILE;
  const redis = createRedis(loadConfig(config), { name: 'redis-tls-test' });
  redis.on('error', () => undefined);
  redis.on('node error', () => undefined);
  clients.push(redis);
  return redis;
};

beforeAll(async () => {
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    file('key.pem'),
    '-out',
    file('cert.pem'),
  ]);
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('a Sentinel group with a node password, a Sentinel password and TLS everywhere', async () => {
  const [masterPort, sentinelPort] = [await freePort(), await freePort()];
  const master = await startTlsServer(
    [
      '--port',
      '0',
      '--tls-port',
      String(masterPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--requirepass',
      'node-password-1',
      '--masterauth',
      'node-password-1',
      ...tlsArgs(),
    ],
    masterPort,
    'node-password-1',
  );
  master.disconnect();
  writeFileSync(
    file('sentinel.conf'),
    [
      'bind 127.0.0.1',
      'port 0',
      `tls-port ${sentinelPort}`,
      'tls-replication yes',
      `tls-cert-file ${file('cert.pem')}`,
      `tls-key-file ${file('key.pem')}`,
      `tls-ca-cert-file ${file('cert.pem')}`,
      'tls-auth-clients no',
      'requirepass sentinel-password-1',
      `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
      'sentinel auth-pass mymaster node-password-1',
      '',
    ].join('\n'),
  );
  (await startTlsServer([file('sentinel.conf'), '--sentinel'], sentinelPort, 'sentinel-password-1')).disconnect();

  const redis = connect({ REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`, REDIS_SENTINEL_PASSWORD: 'sentinel-password-1' });
  await redis.set('k', 'through the sentinel');
  expect(await redis.get('k')).toBe('through the sentinel');

  // Without the Sentinel's password the master is never found.
  const refused = connect({ REDIS_SENTINELS: `127.0.0.1:${sentinelPort}` });
  expect(await firstError(refused)).toMatch(/NOAUTH|auth|All sentinels are unreachable/i);
  expect(refused.status).not.toBe('ready');
});

test('a Cluster with a password and TLS', async () => {
  const [port, busPort] = [await freePort(), await freePort()];
  const node = await startTlsServer(
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      file('nodes.conf'),
      '--tls-cluster',
      'yes',
      '--cluster-port',
      String(busPort),
      '--cluster-announce-ip',
      '127.0.0.1',
      '--requirepass',
      'node-password-1',
      '--masterauth',
      'node-password-1',
      ...tlsArgs(),
    ],
    port,
    'node-password-1',
  );
  await node.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  for (let i = 0; i < 100 && !String(await node.call('CLUSTER', 'INFO')).includes('cluster_state:ok'); i++) await new Promise((r) => setTimeout(r, 50));
  node.disconnect();

  const redis = connect({ REDIS_CLUSTER_NODES: `127.0.0.1:${port}` });
  await redis.set('{cowrie}k', 'through the cluster');
  expect(await redis.get('{cowrie}k')).toBe('through the cluster');

  // A wrong password is refused, so the password given is the one used.
  const wrong = connect({ REDIS_CLUSTER_NODES: `127.0.0.1:${port}`, REDIS_PASSWORD: 'not-the-password' });
  expect(await firstError(wrong)).toMatch(/WRONGPASS|invalid username-password|Failed to refresh slots cache/i);
  expect(wrong.status).not.toBe('ready');
});

test('TLS certificates are verified: a server whose CA is not trusted is refused', async () => {
  const port = await freePort();
  (
    await startTlsServer(
      ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--requirepass', 'node-password-1', ...tlsArgs()],
      port,
      'node-password-1',
    )
  ).disconnect();
  const untrusted = connect({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_TLS_CA_FILE: '' });
  expect(await firstError(untrusted)).toMatch(/self[- ]signed|certificate/i);
  expect(untrusted.status).not.toBe('ready');
});
