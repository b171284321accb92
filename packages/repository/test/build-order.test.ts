// Risk: a package's build copies another package's build output (the gateway
// ships the dashboard's dist/ beside it) but the task runner does not order the
// two, so on a clean clone the copy runs first, finds nothing and fails the
// build (seen once in CI). The plan turbo makes is read, not assumed.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

interface PlannedTask {
  taskId: string;
  dependencies: string[];
}

function buildPlan(): Map<string, string[]> {
  const run = spawnSync('npx', ['turbo', 'run', 'build', '--dry=json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    // The plan of every package's build is over a megabyte (spawnSync's default buffer), and grows with each package.
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(run.status).toBe(0);
  const plan = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { tasks: PlannedTask[] };
  return new Map(plan.tasks.map((t) => [t.taskId, t.dependencies]));
}

/** Every task `taskId` waits for, directly or through others. */
function waitsFor(plan: Map<string, string[]>, taskId: string): Set<string> {
  const seen = new Set<string>();
  const walk = (id: string) => {
    for (const dep of plan.get(id) ?? []) {
      if (!seen.has(dep)) {
        seen.add(dep);
        walk(dep);
      }
    }
  };
  walk(taskId);
  return seen;
}

/** [package, package whose output it copies] for every `--asset @cowrie/…` in a build script. */
function copiedOutputs(): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const group of ['apps', 'packages', 'services']) {
    for (const dir of readdirSync(path.join(ROOT, group))) {
      let manifest: { name: string; scripts?: Record<string, string> };
      try {
        manifest = JSON.parse(readFileSync(path.join(ROOT, group, dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      for (const match of (manifest.scripts?.build ?? '').matchAll(/--asset (@cowrie\/[a-z-]+)\//g)) {
        pairs.push([manifest.name, match[1]!]);
      }
    }
  }
  return pairs;
}

test('a build that copies another package’s output runs after that package’s build', () => {
  const pairs = copiedOutputs();
  expect(pairs).toContainEqual(['@cowrie/gateway', '@cowrie/dashboard']);
  const plan = buildPlan();
  for (const [pkg, source] of pairs) {
    expect({ pkg, waitsFor: [...waitsFor(plan, `${pkg}#build`)] }).toEqual({ pkg, waitsFor: expect.arrayContaining([`${source}#build`]) });
  }
});
