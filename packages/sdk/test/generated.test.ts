// Risk: the SDK shipping types or an operations table that are not the ones
// openapi.json makes (src/generated/openapi.ts left stale after the document
// changed, or edited by hand), noticed only by the test that starts a gateway.
// This one starts nothing: it runs the generator on the committed document.
// The generator runs in a child Node (openapi-typescript's dependencies are ES
// modules, which Jest's CommonJS runtime does not load).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SDK = path.join(__dirname, '..');
const documentText = readFileSync(path.join(SDK, 'openapi.json'), 'utf8');
const committed = readFileSync(path.join(SDK, 'src/generated/openapi.ts'), 'utf8');

/** What scripts/generate.ts would write for each document text (one child process for all). */
function generate(texts: string[]): string[] {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const { generatedOpenApiSource } = require('./scripts/openapi-types.ts');
       const texts = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
       Promise.all(texts.map((t) => generatedOpenApiSource(t))).then((r) => process.stdout.write(JSON.stringify(r.map((g) => g.source))));`,
    ],
    { cwd: SDK, input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`the generator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

/** The first line where `actual` and `expected` differ, or null when they are the same text. */
function firstDifference(actual: string, expected: string): { line: number; actual?: string; expected?: string } | null {
  if (actual === expected) return null;
  const a = actual.split('\n');
  const e = expected.split('\n');
  let i = 0;
  while (i < a.length && i < e.length && a[i] === e[i]) i++;
  return { line: i + 1, actual: a[i], expected: e[i] };
}

const probed = JSON.parse(documentText) as { paths: Record<string, unknown> };
probed.paths['/v1/generated-probe'] = { get: { operationId: 'generatedProbe', responses: { '200': { description: 'ok' } } } };
let fromCommitted: string;
let fromProbed: string;
let fromReformatted: string;
beforeAll(() => {
  [fromCommitted, fromProbed, fromReformatted] = generate([documentText, JSON.stringify(probed, null, 2), `${documentText}\n`]) as [string, string, string];
});

test('src/generated/openapi.ts is exactly what the generator makes from openapi.json (else: npm run generate -w @cowrie/sdk)', () => {
  expect(firstDifference(committed, fromCommitted)).toBeNull();
});

test('a change of the document changes the generated file, so a stale one is caught', () => {
  expect(fromProbed).toContain('"/v1/generated-probe"');
  expect(fromProbed).toContain('generatedProbe');
  expect(firstDifference(committed, fromProbed)).not.toBeNull();
  // A change of the text alone (the header's sha256) is caught too.
  expect(firstDifference(committed, fromReformatted)).toMatchObject({ line: 1 });
});
