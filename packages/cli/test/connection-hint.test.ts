// Risk: an operator runs a command against a database that is not there (no
// DATABASE_URL set, a typo, the service's database not created yet) and reads
// only "Database `cowrie` does not exist": nothing names the variable to set
// or the way to create it, or the hint prints the URL's password. Or Redis
// is down and the command prints ioredis's stack traces and "Reached the max
// retries per request limit", which names neither the server nor the cause.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { runCli } from '../src';
import { databaseHint, displayUrl, redisHint } from '../src/connection-hint';

const BIN = path.resolve(__dirname, '../bin/cowrie.js');

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

test('a command against a database that does not exist names DATABASE_URL, its password hidden, and how to create it', async () => {
  const name = `cowrie_missing_${randomBytes(4).toString('hex')}`;
  const out = await runCli(['ledger', 'audit'], { DATABASE_URL: `postgresql://postgres:${PASSWORD}@127.0.0.1:5432/${name}`, REDIS_URL: 'redis://127.0.0.1:1' });
  expect(out).toMatchObject({ code: 1, stdout: '' });
  expect(out.stderr).toMatch(/does not exist/);
  expect(out.stderr).toContain(`cowrie: the database is DATABASE_URL=postgresql://postgres:***@127.0.0.1:5432/${name}: set DATABASE_URL`);
  expect(out.stderr).toMatch(/npm start/);
  expect(out.stderr).not.toContain(PASSWORD);
});

test('a command against a server that does not answer names DATABASE_URL too', async () => {
  const out = await runCli(['ledger', 'audit'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/cowrie', REDIS_URL: 'redis://127.0.0.1:1' });
  expect(out.code).toBe(1);
  expect(out.stderr).toContain('cowrie: the database is DATABASE_URL=postgresql://postgres@127.0.0.1:1/cowrie: set DATABASE_URL');
});

test('any other failure gets no database hint', () => {
  expect(databaseHint(new Error('workspace 7 not found'), 'postgresql://postgres@127.0.0.1:5432/cowrie')).toBeNull();
  expect(databaseHint(Object.assign(new Error('duplicate key'), { code: '23505' }), 'postgresql://postgres@127.0.0.1:5432/cowrie')).toBeNull();
  expect(databaseHint(null, 'postgresql://postgres@127.0.0.1:5432/cowrie')).toBeNull();
  // A refused connection names the database only when it was the database's port (Redis's sockets fail the same way).
  const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED', port });
  expect(databaseHint(refused(6379), 'postgresql://postgres@127.0.0.1:5432/cowrie')).toBeNull();
  expect(databaseHint(refused(5432), 'postgresql://postgres@127.0.0.1/cowrie')).toMatch(/^the database is DATABASE_URL=/);
});

test('the URL shown keeps everything but the password', () => {
  expect(displayUrl(`postgresql://app:${PASSWORD}@db.internal:6432/cowrie?sslmode=require`)).toBe(
    'postgresql://app:***@db.internal:6432/cowrie?sslmode=require',
  );
  expect(displayUrl('postgresql://app@db.internal/cowrie')).toBe('postgresql://app@db.internal/cowrie');
  expect(displayUrl('not a url', 'REDIS_URL')).toBe('(REDIS_URL is not a URL)');
});

test('the installed bin with Redis down: one line naming REDIS_URL (password hidden) and the cause, no ioredis stack traces', () => {
  const out = spawnSync(process.execPath, [BIN, 'sandbox', 'messages', '--destination', '+2348031234567'], {
    env: { ...process.env, REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:1/0`, REDIS_CLUSTER_NODES: '', REDIS_SENTINELS: '' },
    encoding: 'utf8',
  });
  expect(out.status).toBe(1);
  expect(out.stdout).toBe('');
  expect(out.stderr).not.toMatch(/\[ioredis\]|Unhandled error event|    at /);
  expect(out.stderr).toContain('cowrie: Redis did not answer at REDIS_URL=redis://:***@127.0.0.1:1/0 (connect ECONNREFUSED 127.0.0.1:1): start Redis');
  expect(out.stderr).not.toContain(PASSWORD);
  // the database was not needed, so it is not blamed
  expect(out.stderr).not.toMatch(/DATABASE_URL/);
});

test('the Redis hint names the setting the connection was made by, and only when the connection failed', () => {
  const refused = new Error('connect ECONNREFUSED 10.0.0.5:6379');
  const single = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: [], REDIS_SENTINELS: [] };
  expect(redisHint(null, single)).toBeNull();
  expect(redisHint(refused, single)).toMatch(/^Redis did not answer at REDIS_URL=redis:\/\/127\.0\.0\.1:6379 \(connect ECONNREFUSED 10\.0\.0\.5:6379\)/);
  expect(redisHint(refused, { ...single, REDIS_CLUSTER_NODES: ['10.0.0.5:6379', '10.0.0.6:6379'] })).toMatch(
    /^Redis did not answer at REDIS_CLUSTER_NODES=10\.0\.0\.5:6379,10\.0\.0\.6:6379 /,
  );
  expect(redisHint(refused, { ...single, REDIS_SENTINELS: ['10.0.0.7:26379'] })).toMatch(/^Redis did not answer at REDIS_SENTINELS=10\.0\.0\.7:26379 /);
});
