// Scenario `footprint`: what running Cowrie costs before any load.
// - The operator CLI's wall time (`cowrie workspace create`, median of 5):
//   compiled through npx and through node, and from the sources through tsx
//   (how every command ran before the build).
// - Idle RSS of each compiled service, 5 s after the gateway is ready, and of
//   the gateway run from the sources through tsx.
// - The production tree the image holds (scripts/build/production-tree.mjs):
//   production npm packages plus build output, in MB.
// Targets: the CLI under 0.5 s, the tree under 250 MB.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, lstatSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchRedisEnv, clearRedisPrefixes, currentRssMb, freePort, freshDatabase, percentile, round1, startProcess, stop, waitForHttp } from '../lib';

const root = path.resolve(__dirname, '../..');
const RUNS = 5;

export interface FootprintResult {
  scenario: 'footprint';
  cli_wall_ms: { npx_compiled: number; node_compiled: number; tsx_sources: number };
  idle_rss_mb: Record<string, number>;
  production_tree_mb: { node_modules: number; build_output: number; total: number };
}

/** Median wall time (ms) of a command, run RUNS times one after another. */
function medianWallMs(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8' });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  }
  return Math.round(percentile(times, 50));
}

/** Bytes under a directory, symbolic links not followed. */
function sizeOf(dir: string): number {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(dir).reduce((sum, entry) => sum + sizeOf(path.join(dir, entry)), 0);
}
const mb = (bytes: number) => round1(bytes / 1024 / 1024);

async function waitForWorkers(ms: number) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export async function footprint(): Promise<FootprintResult> {
  const databaseUrl = await freshDatabase('cowrie_bench');
  const env = { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'development' };
  const create = ['workspace', 'create', '--name', 'Bench'];
  const cli_wall_ms = {
    npx_compiled: medianWallMs('npx', ['cowrie', ...create], env),
    node_compiled: medianWallMs(process.execPath, ['packages/cli/bin/cowrie.js', ...create], env),
    tsx_sources: medianWallMs(process.execPath, ['--import', 'tsx', 'packages/cli/src/main.ts', ...create], env),
  };

  const idle_rss_mb: Record<string, number> = {};
  const port = await freePort();
  const redisEnv = benchRedisEnv();
  const shared = { ...redisEnv, DATABASE_URL: databaseUrl };
  const services = ['gateway', 'payout-worker', 'verification-dispatcher', 'webhook-sender'].map((name) => ({
    name,
    child: startProcess(`services/${name}/dist/main.js`, { ...shared, PORT: String(port) }),
  }));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    await waitForWorkers(5000);
    for (const { name, child } of services) idle_rss_mb[name] = currentRssMb(child.pid!);
  } finally {
    await Promise.all(services.map(({ child }) => stop(child)));
  }
  const sources = startProcess('services/gateway/src/main.ts', { ...shared, PORT: String(port) });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    await waitForWorkers(5000);
    idle_rss_mb['gateway (tsx, sources)'] = currentRssMb(sources.pid!);
  } finally {
    await stop(sources);
    await clearRedisPrefixes(redisEnv);
  }

  const tree = mkdtempSync(path.join(os.tmpdir(), 'cowrie-production-'));
  try {
    const laidOut = await new Promise<number | null>((resolve) => {
      spawn(process.execPath, ['scripts/build/production-tree.mjs', tree, '--offline'], { cwd: root, stdio: 'inherit' }).on('exit', resolve);
    });
    if (laidOut !== 0) throw new Error('scripts/build/production-tree.mjs failed');
    const total = sizeOf(tree);
    const nodeModules = sizeOf(path.join(tree, 'node_modules'));
    return {
      scenario: 'footprint',
      cli_wall_ms,
      idle_rss_mb,
      production_tree_mb: { node_modules: mb(nodeModules), build_output: mb(total - nodeModules), total: mb(total) },
    };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
