// Risk: the reference docs drift from the code: a configuration variable added,
// removed or given another default while docs/reference/configuration.md still
// says the old thing; an error code or `details.reason` the errors reference
// does not list; a static API reference built from an older API document.
// Each reference is made again from the code here and compared with the file
// in the repository (`npm run docs:generate` writes them).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CATALOG, ERROR_STATUS, ZConfig } from '@cowrie/core';
import { API_REFERENCE, MARKDOWN_REFERENCES, ROOT, configComments, configVariables, errorReasons } from '../../../scripts/docs/reference';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.each(MARKDOWN_REFERENCES.map((r) => [r.file, r.make] as const))('%s is what the code says (npm run docs:generate writes it)', (file, make) => {
  expect(read(file)).toBe(make());
});

test('the configuration reference lists every variable of the schema, with its default, and nothing else', () => {
  const doc = read('docs/reference/configuration.md');
  const shapeKeys = configVariables().map((v) => v.name);
  // The schema the services parse with, not a copy: every key it gives an empty environment is listed.
  for (const key of Object.keys(ZConfig.parse({}))) expect(shapeKeys).toContain(key);
  const listed = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  expect(listed).toEqual([...shapeKeys, 'HEALTHCHECK_PORT', 'COWRIE_SECRETS_FILE']);
  expect(doc).toContain('| `PUBLIC_API_RATE_LIMIT` | `120` |');
  expect(doc).toContain('| `JWT_SECRET` | none |');
});

test('a variable without its own comment in the schema cannot be documented', () => {
  const source = read('packages/core/src/config.ts').replace(/ *\/\/ requests per API key per fixed 60-second window\n/, '');
  const comments = configComments(source);
  expect(comments.has('PUBLIC_API_RATE_LIMIT')).toBe(false);
  expect(comments.get('IDEMPOTENCY_WAIT_MS')).toBe('how long a request waits for an in-flight request with the same Idempotency-Key');
});

test('the errors reference lists every code with its status, and the reasons the sources raise', () => {
  const doc = read('docs/reference/errors.md');
  for (const [code, status] of Object.entries(ERROR_STATUS)) expect(doc).toMatch(new RegExp(`^\\| \`${code}\` \\| ${status}[ ,]`, 'm'));
  expect(Object.keys(ERROR_CATALOG)).toEqual(Object.keys(ERROR_STATUS));
  const reasons = errorReasons();
  expect(reasons).toContainEqual(expect.objectContaining({ code: 'insufficient_scope', reason: 'step_up_required' }));
  for (const r of reasons) expect(doc).toContain(r.reason.startsWith('computed: ') ? r.reason.slice('computed: '.length) : `\`${r.reason}\``);
});

test('every error code says what the client should do, and the errors reference shows it beside the code', () => {
  const doc = read('docs/reference/errors.md');
  const catalog: Record<string, { clientAction?: string }> = ERROR_CATALOG;
  const lacking = Object.entries(catalog)
    .filter(([, entry]) => !entry.clientAction?.trim())
    .map(([code]) => code);
  expect(lacking).toEqual([]);
  expect(doc).toMatch(/^\| code \| HTTP status \| when it is sent \| what the client does \|$/m);
  for (const [code, entry] of Object.entries(catalog)) expect(doc).toMatch(new RegExp(`^\\| \`${code}\` \\| .* \\| ${escape(entry.clientAction!)} \\|$`, 'm'));
});

test('the static API reference is built from the current API document', () => {
  const output = path.join(mkdtempSync(path.join(os.tmpdir(), 'api-reference-')), 'index.html');
  const [bin, ...args] = API_REFERENCE.command(output);
  const built = spawnSync(bin!, args, { cwd: ROOT, encoding: 'utf8' });
  expect(built.status).toBe(0);
  expect(read(API_REFERENCE.file)).toBe(readFileSync(output, 'utf8'));
});
