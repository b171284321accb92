// `npm test`: the one gate, the same locally and in CI: lint and typecheck
// (turbo), then every Jest suite against real Postgres and Redis. Ends with the
// line `N passed, N failed`. Extra arguments go to Jest (`npm test -- ledger`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureInstall, root } from './lib/ensure-install.mjs';

ensureInstall();
const jestArgs = process.argv.slice(2);
const bin = (name) => path.join(root, 'node_modules/.bin', name);

if (jestArgs.length === 0) {
  const check = spawnSync(bin('turbo'), ['run', 'lint', 'typecheck', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (check.status !== 0) {
    console.log('lint/typecheck failed');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const results = path.join(root, '.test-results.json');
rmSync(results, { force: true });
const jest = spawnSync(bin('jest'), ['--json', `--outputFile=${results}`, ...jestArgs], { cwd: root, stdio: 'inherit' });
let passed = 0;
let failed = 0;
if (existsSync(results)) {
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  passed = summary.numPassedTests;
  failed = summary.numFailedTests + summary.numRuntimeErrorTestSuites;
}
if (jest.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(jest.status === 0 && failed === 0 ? 0 : 1);
