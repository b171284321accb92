// Risk: the API document passes our own checks but not the tools other
// languages' clients are generated with: an invalid OpenAPI 3.1 document, a
// $ref that resolves nowhere, an unused component, an operation without a
// summary, a description or an error answer. Redocly CLI lints it with the
// rules of redocly.yaml (exceptions in .redocly.lint-ignore.yaml), offline.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@cowrie/core';
import { buildOpenApiDocument, closeGatewayDeps, createApp, createGatewayDeps, routesOf } from '@cowrie/gateway';

const ROOT = path.join(__dirname, '../..');
// The committed snapshot: the exceptions in .redocly.lint-ignore.yaml name its path.
const DOCUMENT = 'packages/sdk/openapi.json';

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint` of one file with the repository's config, as its JSON report. */
function lint(file: string): Promise<LintReport> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin/redocly'),
      ['lint', file, '--config', 'redocly.yaml', '--format=json', '--max-problems=1000'],
      // No usage data and no update check: nothing leaves the machine.
      { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        // It exits 1 when it finds errors; the report says which.
        try {
          resolve(JSON.parse(stdout) as LintReport);
        } catch {
          reject(err ?? new Error(`redocly lint printed no report: ${stderr}`));
        }
      },
    );
  });
}

const problemsOf = (report: LintReport) => report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

test(`${DOCUMENT} is the document the gateway builds`, async () => {
  // Building the app registers every route; nothing is called, so the database is not needed.
  const deps = createGatewayDeps(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }));
  try {
    const built = buildOpenApiDocument(routesOf(createApp(deps)).routes);
    // If this fails: npm run sdk:generate
    expect(JSON.parse(readFileSync(path.join(ROOT, DOCUMENT), 'utf8'))).toEqual(JSON.parse(JSON.stringify(built)));
  } finally {
    await closeGatewayDeps(deps).catch(() => undefined);
  }
});

test('Redocly finds no problem in it', async () => {
  const report = await lint(DOCUMENT);
  expect(problemsOf(report)).toEqual([]);
  // The exceptions of .redocly.lint-ignore.yaml, and no more.
  expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 4 });
});

test('the lint fails a document with an unresolved $ref, an unused component or an operation without a summary', async () => {
  const doc = JSON.parse(readFileSync(path.join(ROOT, DOCUMENT), 'utf8'));
  delete doc.components.schemas.Bank;
  doc.components.schemas.Unused = { type: 'string' };
  delete doc.paths['/v1/channels'].get.summary;
  const dir = mkdtempSync(path.join(tmpdir(), 'cowrie-openapi-'));
  try {
    writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    const report = await lint(path.join(dir, 'openapi.json'));
    const failed = new Set(report.problems.filter((p) => p.severity === 'error').map((p) => p.ruleId));
    expect([...failed]).toEqual(expect.arrayContaining(['no-unresolved-refs', 'no-unused-components', 'operation-summary']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
