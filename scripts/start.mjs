// `npm start`: installs if needed, builds what changed, creates and migrates the
// database, then runs the compiled gateway and three workers as separate
// processes until Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import readline from 'node:readline';
import { ensureBuild, ensureInstall, root } from './lib/ensure-install.mjs';

const env = { ...process.env };
env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/cowrie';
env.REDIS_URL ||= 'redis://127.0.0.1:6379';

// Checked before installing and building: nothing could start. The value is not
// printed (it may hold a password); the services check the rest of the configuration.
let database;
try {
  database = new URL(env.DATABASE_URL);
} catch {
  console.error('cowrie: DATABASE_URL is not a URL: set it to the Postgres database, e.g. postgresql://postgres@127.0.0.1:5432/cowrie');
  process.exit(1);
}

ensureInstall();
ensureBuild();
if (process.stdout.isTTY && !env.LOG_FORMAT) env.LOG_FORMAT = 'pretty';

const migrate = spawnSync(process.execPath, ['--experimental-wasm-modules', '--no-warnings', 'packages/db/migrate/cli.mjs', 'apply'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
if (migrate.status !== 0) {
  console.error(`cowrie: migrating ${database.pathname.slice(1)} failed; is Postgres running at ${database.host}?`);
  process.exit(1);
}

const SERVICES = ['gateway', 'payout-worker', 'verification-dispatcher', 'webhook-sender'];
const COLORS = [36, 33, 35, 32];
const width = Math.max(...SERVICES.map((s) => s.length));
const children = new Map();
let stopping = false;

function prefix(name, i) {
  const label = name.padEnd(width);
  return process.stdout.isTTY ? `\x1b[${COLORS[i]}m${label}\x1b[0m │ ` : `${label} | `;
}

SERVICES.forEach((name, i) => {
  const child = spawn(process.execPath, [`services/${name}/dist/main.js`], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(name, child);
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix(name, i)}${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`cowrie: ${name} exited (${signal ?? code}); stopping the others`);
      stop(code || 1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
});

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(code);
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(code || 1);
  }, 20_000).unref();
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
