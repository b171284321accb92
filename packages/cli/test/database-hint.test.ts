// Risk: an operator runs a command against a database that is not there (no
// DATABASE_URL set, a typo, the service's database not created yet) and reads
// only "Database `cowrie` does not exist": nothing names the variable to set
// or the way to create it, or the hint prints the URL's password.
import { randomBytes } from 'node:crypto';
import { runCli } from '../src';
import { databaseHint, displayDatabaseUrl } from '../src/database-hint';

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
  expect(displayDatabaseUrl(`postgresql://app:${PASSWORD}@db.internal:6432/cowrie?sslmode=require`)).toBe(
    'postgresql://app:***@db.internal:6432/cowrie?sslmode=require',
  );
  expect(displayDatabaseUrl('postgresql://app@db.internal/cowrie')).toBe('postgresql://app@db.internal/cowrie');
});
