// Builds the template database every test file clones (CREATE DATABASE ...
// TEMPLATE) with the project's own migration tool, so tests run on exactly the
// schema `npm start` migrates to. The template is named after a hash of the
// migrations, so it is built once per schema and parallel runs share it.
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');

const root = path.resolve(__dirname, '../..');
const migrationsDir = path.join(root, 'prisma/migrations');

function migrationsHash() {
  const hash = createHash('sha256');
  for (const dir of readdirSync(migrationsDir).sort()) {
    const file = path.join(migrationsDir, dir, 'migration.sql');
    if (existsSync(file)) hash.update(dir).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

module.exports = async function globalSetup() {
  const base = new URL(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/cowrie');
  const template = `cowrie_tpl_${migrationsHash()}`;
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(727274)');
    const ready = await client.query("SELECT 1 FROM pg_database WHERE datname = $1 AND shobj_description(oid, 'pg_database') = 'ready'", [template]);
    if (ready.rowCount === 0) {
      await client.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
      const url = new URL(base);
      url.pathname = `/${template}`;
      const result = spawnSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url.toString() },
        encoding: 'utf8',
      });
      if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.stdout}\n${result.stderr}`);
      await client.query(`COMMENT ON DATABASE "${template}" IS 'ready'`);
    }
    // Databases of test runs killed before their cleanup: each is named after the
    // process that made it (cowrie_t_<pid>_<id>), and only a gone process's are dropped,
    // so test runs side by side keep theirs.
    const made = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'cowrie\\_t\\_%'");
    for (const { datname } of made.rows) {
      const pid = Number(/^cowrie_t_(\d+)_/.exec(datname)?.[1]);
      if (Number.isInteger(pid) && isAlive(pid)) continue;
      await client.query(`DROP DATABASE IF EXISTS "${datname}"`).catch(() => undefined);
    }
    await client.query('SELECT pg_advisory_unlock(727274)');
  } finally {
    await client.end();
  }
  const url = new URL(base);
  url.pathname = `/${template}`;
  process.env.COWRIE_TEST_TEMPLATE_URL = url.toString();
};
