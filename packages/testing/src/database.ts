import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';

const ROOT = path.join(__dirname, '../../..');

/** The Postgres server: the test template's (set by the Jest set-up), else DATABASE_URL's, else the local default. */
function serverUrl(): URL {
  return new URL(process.env.COWRIE_TEST_TEMPLATE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie');
}

/** The URL of database `name` on the server. */
export function databaseUrlOf(name: string): string {
  const url = serverUrl();
  url.pathname = `/${name}`;
  return url.toString();
}

/** The database name of a database URL. */
export const databaseNameOf = (url: string) => new URL(url).pathname.slice(1);

async function adminQuery(statement: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrlOf('postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The databases this process created and has not dropped yet. */
const created = new Set<string>();

/** The databases this process created and has not dropped yet (a bench counts their Postgres backends' CPU). */
export const createdDatabases = (): string[] => [...created];

export interface DatabaseOptions {
  /** The name's last part; random when absent. */
  tag?: string;
}

/**
 * Creates an empty database `<name>_<pid>_<tag>` and returns its URL. The
 * creating process's id is in the name: the Jest set-up drops the test
 * databases of processes that are gone, and runs side by side (other
 * worktrees, other packages) never drop each other's.
 */
export async function emptyDatabase(name: string, opts: DatabaseOptions & { template?: string } = {}): Promise<string> {
  const tagged = `${name}_${process.pid}_${opts.tag ?? randomBytes(3).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${tagged}"${opts.template ? ` TEMPLATE "${opts.template}"` : ''}`);
  created.add(tagged);
  return databaseUrlOf(tagged);
}

/**
 * A fresh database at the schema's latest migration: an empty database
 * migrated with the project's migrate CLI (`packages/db/migrate/cli.mjs
 * apply`, as a deployment migrates), or, `from: 'template'`, cloned from the
 * migrated test template (`COWRIE_TEST_TEMPLATE_URL`, built once per
 * migration set by the Jest set-up; much faster).
 */
export async function freshDatabase(name: string, opts: DatabaseOptions & { from?: 'migrations' | 'template' } = {}): Promise<string> {
  if (opts.from === 'template') {
    const template = databaseNameOf(process.env.COWRIE_TEST_TEMPLATE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cowrie_test_template');
    return emptyDatabase(name, { ...opts, template });
  }
  const url = await emptyDatabase(name, opts);
  const migrated = spawnSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) {
    await dropDatabase(databaseNameOf(url));
    throw new Error(`migrating ${databaseNameOf(url)} failed: ${migrated.stdout}${migrated.stderr}`);
  }
  return url;
}

/** Drops a database, connections and all. */
export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  created.delete(name);
}

/** Drops every database this process created and has not dropped (once the processes on them have stopped). */
export async function dropCreatedDatabases(): Promise<void> {
  for (const name of [...created]) await dropDatabase(name);
}
