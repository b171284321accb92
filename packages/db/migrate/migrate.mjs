// Cowrie's offline migration tool: Prisma's schema engine compiled to
// WebAssembly (@prisma/schema-engine-wasm), driven through @prisma/adapter-pg.
// It reads and writes Prisma's own folder format and `_prisma_migrations`
// table, so `prisma migrate deploy` works too wherever its native engine exists.
// Needs `node --experimental-wasm-modules`.
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { SchemaEngine } from '@prisma/schema-engine-wasm';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');
export const schemaPath = path.join(repoRoot, 'prisma/schema.prisma');
export const migrationsDir = path.join(repoRoot, 'prisma/migrations');
const SNAPSHOT = 'schema.prisma.snapshot';
const LOCKFILE = 'migration_lock.toml';
const noFilters = { externalTables: [], externalEnums: [] };

/** Creates the database named in `url` when it does not exist yet. */
export async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  admin.search = '';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err) => {
        // Created by a concurrent starter: 42P04 (duplicate_database) once it committed, 23505
        // (pg_database's unique index) while two CREATE DATABASE of one name race.
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
      return true;
    }
    return false;
  } finally {
    await client.end();
  }
}

async function loadMigrations() {
  const entries = existsSync(migrationsDir) ? await readdir(migrationsDir, { withFileTypes: true }) : [];
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrationDirectories = [];
  for (const dir of dirs) {
    const file = path.join(migrationsDir, dir, 'migration.sql');
    const content = existsSync(file) ? { tag: 'ok', value: await readFile(file, 'utf8') } : { tag: 'error', value: `missing ${file}` };
    migrationDirectories.push({ path: dir, migrationFile: { path: 'migration.sql', content } });
  }
  const lockPath = path.join(migrationsDir, LOCKFILE);
  return {
    baseDir: migrationsDir,
    lockfile: { path: LOCKFILE, content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

async function withEngine(url, fn) {
  const datamodel = await readFile(schemaPath, 'utf8');
  // Our pool, ended when the engine is done: an idle pool would keep the process alive for its 10 s idle timeout.
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
  const logs = [];
  try {
    const engine = await SchemaEngine.new({ datamodels: [[schemaPath, datamodel]] }, (line) => logs.push(line), adapter);
    try {
      return await fn(engine);
    } finally {
      engine.free();
    }
  } finally {
    await pool.end();
  }
}

/** Applies every migration folder not yet recorded in `_prisma_migrations`. */
export async function applyMigrations(url) {
  await ensureDatabase(url);
  const migrationsList = await loadMigrations();
  return withEngine(url, async (engine) => {
    const out = await engine.applyMigrations({ migrationsList, filters: noFilters });
    return out.appliedMigrationNames;
  });
}

/**
 * Writes a new migration folder with the SQL that takes the schema the last
 * migration reached (its saved snapshot) to today's schema.prisma.
 * Returns null when nothing changed.
 */
export async function createMigration(name, url) {
  const slug = String(name || '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  if (!slug) throw new Error('a migration needs a name: npm run db:migration:new -- NAME');
  const current = await readFile(schemaPath, 'utf8');
  const list = await loadMigrations();
  const last = list.migrationDirectories.at(-1);
  let from = { tag: 'empty' };
  if (last) {
    const snap = path.join(migrationsDir, last.path, SNAPSHOT);
    if (!existsSync(snap)) throw new Error(`${last.path} has no ${SNAPSHOT}; cannot diff from it`);
    from = { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: await readFile(snap, 'utf8') }] };
  }
  const to = { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: current }] };
  await ensureDatabase(url);
  const sql = await withEngine(url, async (engine) => {
    const result = await engine.diff({ from, to, script: true, exitCode: null, filters: noFilters });
    return result.stdout ?? '';
  });
  if (!sql.trim() || /^-- This is an empty migration\.?\s*$/.test(sql.trim())) return null;
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const dir = path.join(migrationsDir, `${stamp}_${slug}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'migration.sql'), sql);
  await writeFile(path.join(dir, SNAPSHOT), current);
  const lockPath = path.join(migrationsDir, LOCKFILE);
  if (!existsSync(lockPath)) {
    await writeFile(
      lockPath,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  return dir;
}
