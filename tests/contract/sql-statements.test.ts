// Risk: a plain-pg statement (the hot paths) drifting from the migrated schema,
// a renamed column or a Decimal read as a string, and failing requests instead
// of a test; or a statement the check never sees.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { definedStatements } from '@cowrie/db';
import { checkStatementPlans, checkStatementsAgainstSchema, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';

const ROOT = path.resolve(__dirname, '../..');

/** Every source file (not a test) of the packages and services that defines a statement. */
function filesDefiningStatements(): string[] {
  const files: string[] = [];
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(path.join(ROOT, group))) {
      const src = path.join(ROOT, group, name, 'src');
      let entries: string[];
      try {
        entries = readdirSync(src, { recursive: true }) as string[];
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!entry.endsWith('.ts') || entry.endsWith('.test.ts') || entry.split(path.sep).includes('generated')) continue;
        const file = path.join(src, entry);
        if (file.endsWith(path.join('packages', 'db', 'src', 'statement.ts'))) continue;
        if (readFileSync(file, 'utf8').includes('defineStatement(')) files.push(file);
      }
    }
  }
  return files;
}

const defining = filesDefiningStatements();

let env: TestEnv;
beforeAll(async () => {
  // Loading each file registers its statements, whichever package it is in.
  for (const file of defining) await import(file);
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

// Every statement, by name: a new one is added here, so a reviewer sees it.
const EXPECTED = [
  'cowrie-advisory-unlock',
  'cowrie-claim-due-payout-checks',
  'cowrie-claim-due-reversal-checks',
  'cowrie-claim-earlier-payout-attempts',
  'cowrie-close-held-debits',
  'cowrie-create-verification',
  'cowrie-create-verifications',
  'cowrie-create-workspace',
  'cowrie-earlier-debit',
  'cowrie-find-api-keys',
  'cowrie-find-verification',
  'cowrie-find-verifications',
  'cowrie-keep-unmatched-payout-event',
  'cowrie-next-reversal-check',
  'cowrie-oldest-processing-payout',
  'cowrie-open-held-debit',
  'cowrie-open-held-debits',
  'cowrie-outbox-claim',
  'cowrie-outbox-deliveries',
  'cowrie-outbox-endpoints',
  'cowrie-outbox-relayed',
  'cowrie-outbox-unsent-deliveries',
  'cowrie-outbox-waiting',
  'cowrie-payout-answer',
  'cowrie-payout-attempt-unconfirmed',
  'cowrie-payout-await-outcome',
  'cowrie-payout-by-reference',
  'cowrie-payout-checks',
  'cowrie-payout-current-row',
  'cowrie-payout-fail-over',
  'cowrie-payout-keep-rail-answer',
  'cowrie-payout-keep-unapplied-rail-answer',
  'cowrie-payout-provider-error',
  'cowrie-payout-routing-rules',
  'cowrie-payout-status',
  'cowrie-payout-take-up',
  'cowrie-payout-take-up-one',
  'cowrie-payouts-with-mode',
  'cowrie-record-audit-event',
  'cowrie-release-expired-request-key',
  'cowrie-reverse-settled-debit',
  'cowrie-sandbox-claim-reversals',
  'cowrie-sandbox-return-transfer',
  'cowrie-sandbox-transfer-calls',
  'cowrie-sandbox-transfers',
  'cowrie-sandbox-unclaim-reversal',
  'cowrie-sandbox-verify',
  'cowrie-stale-payouts',
  'cowrie-touch-api-key',
  'cowrie-try-advisory-lock',
  'cowrie-unclaim-earlier-payout-attempt',
  'cowrie-verification-by-provider-message',
  'cowrie-verification-claim-read',
  'cowrie-verification-code-transition',
  'cowrie-verification-code-transitions',
  'cowrie-verification-delivered',
  'cowrie-verification-delivery-failed',
  'cowrie-verification-delivery-report',
  'cowrie-verification-expire',
  'cowrie-verification-fail-exhausted',
  'cowrie-verifications-by-id',
  'cowrie-verifications-claim-read',
  'cowrie-verifications-claim-send',
  'cowrie-verifications-delivered',
  'cowrie-wallet-available',
  'cowrie-webhook-deliveries',
  'cowrie-webhook-outcomes',
];

test('every statement is registered, and they are the expected ones', () => {
  expect(defining.length).toBeGreaterThan(0);
  expect(
    definedStatements()
      .map((s) => s.name)
      .sort(),
  ).toEqual(EXPECTED);
});

test('every statement prepares against the migrated schema, with the parameters, columns and types it declares', async () => {
  expect(await checkStatementsAgainstSchema(env.sql, definedStatements())).toEqual([]);
});

test('no statement scans an index without its leading column (a lookup that would read more of the index as the table grows)', async () => {
  expect(await checkStatementPlans(env.sql, definedStatements())).toEqual([]);
});
