// Risk: a package's tests reach into another package's `test/` folder (helpers
// no exports map names, which that package may move or change as its own) or
// into another workspace by a relative path (past its package.json, so no
// dependency says so and turbo's graph misses it), a
// package's production code imports a stand-in (the build would bundle it into
// dist/), or a test file sits in `src/`, where the placement rule of
// CONTRIBUTING.md (Tests) says it does not belong. Each import of every
// tracked file is read, including the soak's and the benchmark's.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;
const TEST_FILE = /\.test\.(?:[cm]?[jt]s|tsx)$/;
/** `from '…'`, `import('…')`, `import '…'`, `require('…')`, `jest.mock('…')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bjest\.(?:mock|requireActual)\s*\(\s*)['"]([^'"\n]+)['"]/g;

/** Workspace package name to its folder (`@cowrie/paystack` → `packages/paystack`). */
function workspaces(): Map<string, string> {
  const names = new Map<string, string>();
  for (const pattern of ['packages/*/package.json', 'services/*/package.json', 'tests/package.json']) {
    const listed = spawnSync('git', ['ls-files', pattern], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n');
    for (const file of listed.filter(Boolean)) {
      names.set((JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as { name: string }).name, path.dirname(file));
    }
  }
  return names;
}

/** `packages/rails` for `packages/rails/test/x.ts`, `tests` for `tests/e2e/x.ts`; '' for a file outside every workspace (the soak, the benchmark, scripts). */
const ownerOf = (file: string) => /^(?:(?:packages|services)\/[^/]+|tests)(?=\/|$)/.exec(file)?.[0] ?? '';

interface Finding {
  file: string;
  problem: string;
}

/** What is wrong with one file's place and imports; `file` relative to the root, `text` its contents. */
function findingsOf(file: string, text: string, packages: Map<string, string>): Finding[] {
  const found: Finding[] = [];
  const owner = ownerOf(file);
  if (owner && TEST_FILE.test(file) && file.startsWith(`${owner}/src/`)) {
    found.push({ file, problem: `a test file in src/: move it to ${owner}/test/ (git mv)` });
  }
  const production = owner !== '' && file.startsWith(`${owner}/src/`) && !TEST_FILE.test(file) && owner !== 'packages/testing';
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    let target: string | undefined;
    if (specifier!.startsWith('.')) {
      target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!));
    } else {
      const [scope, name, ...rest] = specifier!.split('/');
      const dir = packages.get(`${scope}/${name}`);
      if (dir !== undefined) target = rest.length > 0 ? `${dir}/${rest.join('/')}` : dir;
    }
    if (target === undefined) continue;
    const into = ownerOf(target);
    if (into === '') continue;
    const inner = target.slice(into.length + 1);
    const inTest = inner === 'test' || inner.startsWith('test/');
    const inTesting = inner === 'testing' || inner.startsWith('testing/');
    if (inTest && into !== owner) {
      found.push({ file, problem: `imports ${specifier}, another package's test/ folder: export it from ${into}/testing/ instead (CONTRIBUTING.md, Tests)` });
    } else if (specifier!.startsWith('.') && owner !== '' && into !== owner) {
      found.push({ file, problem: `imports ${specifier} by a relative path into ${into}: import it by its package name (its index or its testing/ entry)` });
    }
    if (production && (inTest || inTesting || into === 'packages/testing')) {
      found.push({ file, problem: `production code imports ${specifier}, which is for tests only` });
    }
  }
  return found;
}

function trackedSources(): string[] {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  expect(listed.status).toBe(0);
  return listed.stdout
    .split('\n')
    .filter((file) => SOURCE.test(file) && !file.includes('/generated/') && !file.includes('/dist/') && existsSync(path.join(ROOT, file)));
}

describe('the finder itself', () => {
  const packages = new Map([
    ['@cowrie/paystack', 'packages/paystack'],
    ['@cowrie/rails', 'packages/rails'],
    ['@cowrie/testing', 'packages/testing'],
  ]);
  const problems = (file: string, text: string) => findingsOf(file, text, packages).map((f) => f.problem);

  test("finds another package's test/ folder reached by name, by a relative path, by require and by jest.mock", () => {
    expect(problems('services/gateway/test/a.test.ts', "import { startPaystackStandIn } from '@cowrie/paystack/test/paystack-stand-in';")).toHaveLength(1);
    expect(problems('packages/rails/test/b.test.ts', "import {\n  startPaystackStandIn,\n} from '../../paystack/test/paystack-stand-in';")).toHaveLength(1);
    expect(problems('soak/world.ts', "const s = require('../packages/rails/test/flutterwave-stand-in');")).toHaveLength(1);
    expect(problems('packages/rails/test/c.test.ts', "jest.mock('@cowrie/paystack/test');")).toHaveLength(1);
  });

  test("finds a relative import into another workspace, the system's tests/ included", () => {
    expect(problems('tests/e2e/a.test.ts', "import { startTestGateway } from '../../services/gateway/test/start-test-gateway';")).toHaveLength(1);
    expect(problems('tests/e2e/b.test.ts', "import { createApp } from '../../services/gateway/src/app';")).toHaveLength(1);
    expect(problems('services/gateway/test/c.test.ts', "import { runCli } from '../../../packages/cli/src';")).toHaveLength(1);
    expect(problems('packages/rails/test/d.test.ts', "import { helper } from '../../../tests/e2e/payout-stack';")).toHaveLength(1);
  });

  test('allows a testing entry, and a package its own test/ folder', () => {
    expect(problems('services/gateway/test/a.test.ts', "import { startPaystackStandIn } from '@cowrie/paystack/testing';")).toEqual([]);
    expect(problems('packages/rails/test/b.test.ts', "import { startFlutterwaveStandIn } from '../testing';\nimport { helper } from './helpers';")).toEqual([]);
    expect(problems('packages/paystack/test/providers/c.test.ts', "import { x } from '../../test/fixtures/x';")).toEqual([]);
    expect(
      problems('tests/browser/e.test.ts', "import { startPayoutStack } from '../e2e/payout-stack';\nimport { call } from '@cowrie/gateway/testing';"),
    ).toEqual([]);
    expect(problems('packages/repository/test/f.test.ts', "import { reference } from '../../../scripts/docs/reference';")).toEqual([]);
  });

  test('finds a test file in src/, and production code that imports a stand-in or @cowrie/testing', () => {
    expect(problems('packages/rails/src/routing.test.ts', "import { pick } from './routing';")).toHaveLength(1);
    expect(problems('packages/rails/src/flutterwave.ts', "import type { FlutterwaveStandIn } from '../testing';")).toHaveLength(1);
    expect(problems('packages/rails/src/index.ts', "export { startPaystackStandIn } from '@cowrie/paystack/testing';")).toHaveLength(1);
    expect(problems('packages/rails/src/paystack.ts', "import { waitFor } from '@cowrie/testing';")).toHaveLength(1);
  });
});

test("no file imports another package's test/ folder or another workspace by a relative path, no production code imports what is for tests, no test file sits in src/", () => {
  const packages = workspaces();
  expect(packages.get('@cowrie/paystack')).toBe('packages/paystack');
  const files = trackedSources();
  expect(files.length).toBeGreaterThan(200);
  // This file names forbidden imports as the finder's own examples.
  const found = files
    .filter((file) => file !== 'packages/repository/test/test-boundaries.test.ts')
    .flatMap((file) => findingsOf(file, readFileSync(path.join(ROOT, file), 'utf8'), packages));
  expect(found).toEqual([]);
});

test("every package's testing/ folder is its `./testing` export, and nothing else is exported beside its index", () => {
  const packages = workspaces();
  const withTesting = [...packages].filter(([, dir]) => existsSync(path.join(ROOT, dir, 'testing/index.ts')));
  expect(withTesting.map(([name]) => name)).toEqual(expect.arrayContaining(['@cowrie/ledger', '@cowrie/paystack', '@cowrie/rails', '@cowrie/verification']));
  for (const [name, dir] of withTesting) {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { main: string; exports?: unknown };
    expect({ name, exports: manifest.exports }).toEqual({ name, exports: { '.': `./${manifest.main}`, './testing': './testing/index.ts' } });
  }
});
