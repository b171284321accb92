// Risk: a package, a service or the dashboard lists a service (the gateway or a
// worker) among its dependencies or devDependencies, so its tests start the
// stack from the wrong place and turbo builds services for it. Tests that need
// more than one service live in the `tests/` workspace, the one place that
// lists the services (CONTRIBUTING.md).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function manifests(pattern: string): Array<{ file: string; manifest: Manifest }> {
  const files = spawnSync('git', ['ls-files', pattern], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return files.map((file) => ({ file, manifest: JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Manifest }));
}

/** The services a manifest lists, by name. */
function servicesListed(manifest: Manifest, services: ReadonlySet<string>): string[] {
  return Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => services.has(name));
}

test('no package, service or app lists a service among its dependencies or devDependencies', () => {
  const services = new Set(manifests('services/*/package.json').map(({ manifest }) => manifest.name));
  expect(services).toEqual(new Set(['@cowrie/gateway', '@cowrie/payout-worker', '@cowrie/verification-dispatcher', '@cowrie/webhook-sender']));
  const found = ['packages/*/package.json', 'services/*/package.json', 'apps/*/package.json'].flatMap((pattern) =>
    manifests(pattern).flatMap(({ file, manifest }) => servicesListed(manifest, services).map((service) => `${file} lists ${service}`)),
  );
  expect(found).toEqual([]);
});

test('the check finds a service listed as a devDependency (the gateway listing the workers for its tests, as it once did)', () => {
  const services = new Set(['@cowrie/payout-worker']);
  expect(servicesListed({ name: '@cowrie/gateway', devDependencies: { '@cowrie/payout-worker': '*', zod: '^4' } }, services)).toEqual([
    '@cowrie/payout-worker',
  ]);
  expect(servicesListed({ name: '@cowrie/sdk', devDependencies: { esbuild: '*' } }, services)).toEqual([]);
});
