// Risk: `npm start` with a DATABASE_URL that is not a URL prints the
// migration's "Invalid URL" and then a TypeError stack from its own error
// message, naming neither the variable nor what to set; or prints the value,
// which may hold a password.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

test('a DATABASE_URL that is not a URL stops npm start with one line naming it, no stack, no value', () => {
  const out = spawnSync(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: 'notaurl-s3cret' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(out.status).toBe(1);
  expect(out.stderr).toMatch(/^cowrie: DATABASE_URL is not a URL/m);
  expect(out.stderr).not.toMatch(/TypeError|    at /);
  expect(out.stderr).not.toContain('s3cret');
  expect(out.stdout).not.toContain('s3cret');
}, 130_000);
