// `@cowrie/ledger/testing`: the ledger's part of every test environment. Tests
// of a package that can move money take `createTestEnv` from here, not from
// `@cowrie/testing` (lint refuses the other, eslint.config.mjs), so the ledger
// this file left behind is audited at cleanup and cannot be forgotten. Never
// imported by a package's src/: the build refuses to bundle it.
import { Decimal } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { createTestEnv as createBareTestEnv, type CleanupAudit, type TestEnv, type TestEnvOptions } from '@cowrie/testing';
import { auditLedger } from '../src/audit';
import { creditWallet } from '../src/credit-wallet';

export class LedgerViolationError extends Error {
  override name = 'LedgerViolationError';
}

/**
 * Audits the ledger a test file left behind (auditLedger: every wallet, payout
 * and credit whole, money conserved); throws LedgerViolationError naming each
 * violation, or when the auditor itself could not run.
 */
export const LEDGER_AUDIT: CleanupAudit = {
  name: 'ledger',
  run: async ({ db }) => {
    const audit = await auditLedger(db).catch((err: unknown) => ({ ok: false, violations: [{ rule: 'audit_failed', message: String(err) }] }));
    if (!audit.ok) throw new LedgerViolationError(`the ledger this test file left behind has violations:\n${JSON.stringify(audit.violations, null, 2)}`);
  },
};

/** `createTestEnv` of `@cowrie/testing` whose cleanup audits the ledger first, then runs `options.audits`. */
export function createTestEnv(env: Record<string, string> = {}, options: TestEnvOptions = {}): Promise<TestEnv> {
  return createBareTestEnv(env, { ...options, audits: [LEDGER_AUDIT, ...(options.audits ?? [])] });
}

/** Money into a workspace's wallet, as an operator's adjustment through the ledger (what `cowrie wallets credit` does). */
export async function fundWallet(db: PrismaClient, workspaceId: number, amount: string | number, currency = 'NGN') {
  return db.$transaction((tx) =>
    creditWallet(tx, {
      workspaceId,
      currency,
      amount: new Decimal(amount),
      category: 'adjustment',
      channel: 'adjustment',
      title: 'Test funding',
      description: 'test funding',
      provider: 'operator',
    }),
  );
}
