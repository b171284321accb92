// A workspace package's `test` script (turbo's `test` task runs it from the
// package's directory): the root Jest config, only this package's test files,
// results written to the package's `.test-results.json`, which turbo caches
// with the task and `npm test` adds up. Extra arguments go to Jest.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packageDir = path.relative(root, process.cwd());
const jest = spawnSync(
  path.join(root, 'node_modules/.bin/jest'),
  // --forceExit: a file may leave an idle handle behind (a worker that handed its
  // job back keeps BullMQ's close pending, as it would until its process exits);
  // with one worker Jest runs in band and would wait for it forever.
  ['--json', `--outputFile=${path.join(process.cwd(), '.test-results.json')}`, '--forceExit', ...process.argv.slice(2), '--', `${root}/${packageDir}/`],
  { cwd: root, stdio: 'inherit' },
);
process.exit(jest.status ?? 1);
