// `npm test`: the one gate, the same locally and in CI: the formatting check
// (Prettier), unused code and dependencies (knip), typecheck and lint with type
// information, then every Jest suite against real Postgres and Redis, then two
// short chaos soaks. Ends with the line `N passed, N failed`. Extra arguments
// go to Jest alone (`npm test -- ledger`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureBuild, ensureInstall, root } from './lib/ensure-install.mjs';
import { testFilesInRepository, unrunTestFiles } from './lib/unrun-tests.mjs';

ensureInstall();
const jestArgs = process.argv.slice(2);
// Jest alone (`npm test -- ledger`) skips turbo, which builds before testing; tests that run a compiled service need dist/.
if (jestArgs.length > 0) ensureBuild();
const bin = (name) => path.join(root, 'node_modules/.bin', name);

if (jestArgs.length === 0) {
  // Typecheck: one program for every package, service, test, the soak and the
  // benchmark (tsconfig.check.json), one for the dashboard; then lint with
  // those programs' types. Seconds each, where a program per package re-read
  // every dependency's sources for each one (minutes).
  const typed = ['tsconfig.check.json', 'apps/dashboard/tsconfig.json'].every(
    (project) => spawnSync(bin('tsc'), ['-p', project], { cwd: root, stdio: 'inherit' }).status === 0,
  );
  const linted = spawnSync(bin('eslint'), ['.'], { cwd: root, stdio: 'inherit' }).status === 0;
  // Formatting: `npx prettier --write .` fixes what this reports.
  const formatted = spawnSync(bin('prettier'), ['--check', '--log-level=warn', '.'], { cwd: root, stdio: 'inherit' }).status === 0;
  // Unused files, exports and dependencies, and dependencies a package uses without listing (knip.json).
  const tidy = spawnSync(bin('knip'), ['--no-progress'], { cwd: root, stdio: 'inherit' }).status === 0;
  if (!typed || !linted || !formatted || !tidy) {
    console.log(!formatted ? 'formatting check failed: run npx prettier --write .' : !tidy ? 'knip found unused or unlisted code' : 'lint/typecheck failed');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

let passed = 0;
let failed = 0;
const summaries = [];
function count(resultsFile) {
  if (!existsSync(resultsFile)) return false;
  const summary = JSON.parse(readFileSync(resultsFile, 'utf8'));
  summaries.push(summary);
  passed += summary.numPassedTests;
  failed += summary.numFailedTests + summary.numRuntimeErrorTestSuites;
  return true;
}

if (jestArgs.length === 0) {
  // Each package's tests are a turbo task (scripts/jest/package-tests.mjs), cached on
  // the package's files and those of the packages it depends on: a package nothing
  // changed in replays its results instead of running again. Two packages at a time,
  // one Jest worker each (JEST_MAX_WORKERS overrides), except the system's tests
  // (tests/: across services, browser, contract, SDK), which hold a third of the
  // test files and most of the time, and take two.
  const packages = readdirSync(path.join(root, 'packages'))
    .map((dir) => `packages/${dir}`)
    .concat(readdirSync(path.join(root, 'services')).map((dir) => `services/${dir}`))
    .concat(['tests']);
  for (const dir of packages) rmSync(path.join(root, dir, '.test-results.json'), { force: true });
  const tests = spawnSync(bin('turbo'), ['run', 'test', '--concurrency=2', '--continue', '--output-logs=new-only'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, JEST_MAX_WORKERS: process.env.JEST_MAX_WORKERS ?? '1' },
  });
  let counted = 0;
  for (const dir of packages) if (count(path.join(root, dir, '.test-results.json'))) counted += 1;
  if (tests.status !== 0 && failed === 0) failed = 1;
  if (counted === 0) failed += 1;
  // A test file no package's task ran (outside Jest's roots, or in a package
  // without a `test` script) fails the gate rather than never running.
  const unrun = unrunTestFiles(testFilesInRepository(root), summaries);
  for (const file of unrun) console.log(`not run by any package's test task: ${path.relative(root, file)}`);
  failed += unrun.length;
} else {
  const results = path.join(root, '.test-results.json');
  rmSync(results, { force: true });
  const jest = spawnSync(bin('jest'), ['--json', `--outputFile=${results}`, ...jestArgs], { cwd: root, stdio: 'inherit' });
  count(results);
  if (jest.status !== 0 && failed === 0) failed = 1;
}

// The whole run also soaks: a 90-second seeded chaos run on a single Redis and a
// one-minute smoke run on a three-master Redis Cluster (soak/run.ts; each prints
// its seed), short enough to keep the whole gate near 13 minutes on a 2-core
// machine; longer runs are `npm run soak:many`. Each counts as one test.
// SOAK_SEED picks the seed (default 1).
if (jestArgs.length === 0) {
  const seed = process.env.SOAK_SEED ?? '1';
  for (const args of [
    ['--minutes', '1.5', '--redis', 'single'],
    ['--minutes', '1', '--redis', 'cluster'],
  ]) {
    const soak = spawnSync(process.execPath, ['--import', 'tsx', 'soak/run.ts', '--seed', seed, ...args], { cwd: root, stdio: 'inherit' });
    if (soak.status === 0) passed += 1;
    else failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
