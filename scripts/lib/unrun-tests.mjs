// The test gate has no holes: every test file in the repository is run by some
// package's `test` task. A file Jest's roots or a package's missing `test`
// script leaves out would otherwise never run and never fail.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const TEST_FILE = /\.test\.[cm]?[jt]sx?$/;

/** Test files tracked or new in the working tree (git's view, so node_modules and build output are out). */
export function testFilesInRepository(root) {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout
    .split('\n')
    .filter((file) => TEST_FILE.test(file))
    .map((file) => path.join(root, file));
}

/** The files of `expected` that no Jest result names (`results`: the parsed `--json` outputs). */
export function unrunTestFiles(expected, results) {
  const ran = new Set(results.flatMap((summary) => summary.testResults.map((result) => path.resolve(result.name))));
  return expected.filter((file) => !ran.has(path.resolve(file)));
}
