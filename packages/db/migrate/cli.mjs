// npm run db:migrate            → applies pending migrations to DATABASE_URL
// npm run db:migration:new NAME → writes a migration from prisma/schema.prisma
import { applyMigrations, createMigration } from './migrate.mjs';

const url = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/cowrie';
// The schema engine leaves a 10 s timer behind after its work; exit once the answer is written.
const done = (line) => process.stdout.write(`${line}\n`, () => process.exit(0));
const [command, name] = process.argv.slice(2);
try {
  if (command === 'apply') {
    const applied = await applyMigrations(url);
    done(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } else if (command === 'new') {
    const dir = await createMigration(name, url);
    done(dir ? `wrote ${dir}` : 'schema.prisma matches the last migration; nothing to write');
  } else {
    console.error('usage: cli.mjs apply | new NAME');
    process.exit(2);
  }
} catch (err) {
  console.error(`migration failed: ${err?.message ?? err}`);
  process.exit(1);
}
