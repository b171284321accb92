// Risk: the reference docs drift from the code: a configuration variable added,
// removed or given another default while docs/reference/configuration.md still
// says the old thing; an error code or `details.reason` the errors reference
// does not list; a static API reference built from an older API document.
// Each reference is made again from the code here and compared with the file
// in the repository (`npm run docs:generate` writes them).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_RULES, ERROR_CATALOG, ERROR_STATUS, ZConfig, loadConfig } from '@cowrie/core';
import { API_REFERENCE, MARKDOWN_REFERENCES, OTHER_VARIABLES, ROOT, configComments, configVariables, errorReasons } from '../../../scripts/docs/reference';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
/** A reference as the generator makes it now (the first test compares it with the file). */
const made = (file: string) => MARKDOWN_REFERENCES.find((r) => r.file === file)!.make();
const cellText = (text: string) => text.replace(/\|/g, '\\|');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.each(MARKDOWN_REFERENCES.map((r) => [r.file, r.make] as const))('%s is what the code says (npm run docs:generate writes it)', (file, make) => {
  expect(read(file)).toBe(make());
});

test('the configuration reference lists every variable of the schema, with its default, and nothing else', () => {
  const doc = made('docs/reference/configuration.md');
  const shapeKeys = configVariables().map((v) => v.name);
  // The schema the services parse with, not a copy: every key it gives an empty environment is listed.
  for (const key of Object.keys(ZConfig.parse({}))) expect(shapeKeys).toContain(key);
  const listed = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  expect(listed).toEqual([...shapeKeys, ...OTHER_VARIABLES.flatMap((s) => s.variables.map((v) => v.name))]);
  expect(doc).toContain('| `PUBLIC_API_RATE_LIMIT` | `120` | as elsewhere | requests per API key per fixed 60-second window. |');
  expect(doc).toContain('| `JWT_SECRET` | none | no default; required; refused when weak');
  // The comment's own full stop before what the generator adds.
  expect(doc).toContain('HMAC secret for dashboard session JWTs. A secret: never logged. |');
  expect(doc).toContain('| `OPS_BOARD_READ_ONLY` | none | default `true` |');
});

/** The cell "in production" of a variable's row in the configuration reference. */
function productionCell(doc: string, name: string): string {
  const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
  expect(row).toBeDefined();
  return row!.split(' | ')[2]!;
}

// Configurations that break each rule of CONFIG_RULES, over a development configuration that breaks none but the code providers'.
const BREAKING: ReadonlyArray<Record<string, unknown>> = [
  { JWT_SECRET: '', ENCRYPTION_KEY: '' },
  {
    JWT_SECRET: 'ab'.repeat(20),
    ENCRYPTION_KEY: 'ab'.repeat(32),
    ENCRYPTION_KEY_PREVIOUS: 'ab'.repeat(32),
    COLLECTION_SANDBOX_SECRET: 'ab'.repeat(10),
    METRICS_TOKEN: 'ab'.repeat(10),
    OPS_PASSWORD: 'ab'.repeat(10),
  },
  { DASHBOARD_INVITES: 'email', DASHBOARD_URL: undefined },
  { VERIFY_EMAIL_PROVIDER: 'smtp', VERIFY_SMS_PROVIDER: 'termii', VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud' },
  { PAYOUT_UNKNOWN_GRACE_MS: 60_000 },
  { PAYOUT_WORKER_METRICS_PORT: 9101, METRICS_HOST: '0.0.0.0' },
  { PAYOUT_RAILS: ['sandbox', 'flutterwave'] },
  { PAYOUT_RAILS: ['flutterwave'], PAYOUT_RAIL: 'flutterwave', PAYOUT_FLUTTERWAVE_SECRET_KEY: 'FLWSECK_TEST-123' },
  { PAYOUT_RAILS: ['paystack'], PAYOUT_RAIL: 'paystack' },
  { COLLECTION_RAIL: 'paystack' },
  { PAYOUT_RAILS: ['paystack'], PAYOUT_RAIL: 'paystack', PAYOUT_PAYSTACK_SECRET_KEY: 'sk_test_payouts' },
];

test('every rule of the configuration checks names each variable it declares, and only those, and the reference says it beside each', () => {
  const doc = made('docs/reference/configuration.md');
  const base = loadConfig({});
  expect(CONFIG_RULES.length).toBeGreaterThan(10);
  for (const [index, rule] of CONFIG_RULES.entries()) {
    const named = new Set(BREAKING.flatMap((breaking) => rule.check({ ...base, ...breaking } as typeof base).map((issue) => issue.variable)));
    // Each declared variable is one the check can refuse, and the check refuses no other.
    expect({ rule: index, named: [...named].sort() }).toEqual({ rule: index, named: [...rule.variables].sort() });
    for (const variable of rule.variables) expect(productionCell(doc, variable)).toContain(cellText(rule.production));
  }
  // A configuration that breaks nothing: production's own checks on a staging deployment with strong secrets.
  expect(() =>
    loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'a3f9c2e8b7d14f6a9e0c5b8d2f7a1c4e6b9d0f3a5c8e1b4d7f0a2c5e8b1d4f7a',
      ENCRYPTION_KEY: '9c4e7a1f3b6d8e0a2c5f7b9d1e3a6c8f0b2d4e7a9c1f3b5d8e0a2c4f6b9d1e3a',
      ALLOW_SANDBOX_IN_PRODUCTION: 'true',
    }),
  ).not.toThrow();
});

/** Every source file of the packages, services, apps and scripts that ships or runs (tests, generated code and builds left out). */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', 'generated', 'test'].includes(entry.name)) walk(full);
      } else if (/\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name) && !/\.test\.[a-z]+$/.test(entry.name)) files.push(full);
    }
  };
  for (const group of ['apps', 'packages', 'services'])
    for (const name of readdirSync(path.join(ROOT, group))) {
      const src = path.join(ROOT, group, name, 'src');
      if (readdirSync(path.join(ROOT, group, name)).includes('src')) walk(src);
    }
  walk(path.join(ROOT, 'scripts'));
  return files;
}

/**
 * The environment variables a source reads by name: `process.env.X`,
 * `process.env['X']`, `const { X } = process.env`, and `env.X` / `env['X']`
 * where the file binds `env` to process.env (a parameter defaulting to it, or
 * a copy of it).
 */
function environmentReads(text: string): string[] {
  const names = new Set<string>();
  const add = (pattern: RegExp) => {
    for (const m of text.matchAll(pattern)) names.add(m[1]!);
  };
  add(/process\.env\.([A-Z_][A-Z0-9_]*)/g);
  add(/process\.env\[\s*['"`]([A-Z_][A-Z0-9_]*)['"`]\s*\]/g);
  for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*process\.env\b/g))
    for (const part of m[1]!.split(',')) {
      const name = /^\s*([A-Z_][A-Z0-9_]*)/.exec(part)?.[1];
      if (name) names.add(name);
    }
  if (/\benv\b[^=\n;]*=\s*(\{\s*\.\.\.)?process\.env\b/.test(text)) {
    add(/\benv\.([A-Z_][A-Z0-9_]*)/g);
    add(/\benv\[\s*['"`]([A-Z_][A-Z0-9_]*)['"`]\s*\]/g);
  }
  return [...names];
}

test('every environment variable the sources read is in the configuration reference', () => {
  const doc = made('docs/reference/configuration.md');
  const listed = new Set([...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
  const files = sourceFiles();
  expect(files).toContain(path.join(ROOT, 'packages/service-kit/src/tracing.ts'));
  expect(files).toContain(path.join(ROOT, 'scripts/container/healthcheck.mjs'));
  const missing: string[] = [];
  let reads = 0;
  for (const file of files) {
    for (const name of environmentReads(readFileSync(file, 'utf8'))) {
      reads += 1;
      if (!listed.has(name)) missing.push(`${name} (${path.relative(ROOT, file)})`);
    }
  }
  expect(reads).toBeGreaterThan(10);
  expect(missing.sort()).toEqual([]);
});

test('the scan of environment reads finds each way a source reads one', () => {
  expect(
    environmentReads(
      [
        "const a = process.env.ONE ?? process.env['TWO'];",
        'const { THREE, FOUR: four } = process.env;',
        'export function f(env: NodeJS.ProcessEnv = process.env) { return env.FIVE ?? env["SIX"]; }',
      ].join('\n'),
    ).sort(),
  ).toEqual(['FIVE', 'FOUR', 'ONE', 'SIX', 'THREE', 'TWO']);
  // `env` bound to something else is not the environment.
  expect(environmentReads('const env = loadConfig(); env.PORT;')).toEqual([]);
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
