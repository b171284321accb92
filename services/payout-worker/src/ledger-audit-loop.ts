import type { Logger } from '@cowrie/core';
import type { PrismaClient } from '@cowrie/db';
import { auditLedger } from '@cowrie/ledger';
import type { CowrieMetrics } from '@cowrie/metrics';
import { startPollingLoop, type PollingLoop } from '@cowrie/service-kit';

/**
 * The ledger auditor (the same audit as `cowrie ledger audit`: the whole
 * ledger in one read-only snapshot), run by each payout worker at start and
 * every LEDGER_AUDIT_EVERY_MS, so monitoring sees its outcome: violations
 * found, when an audit last ran to the end, audits that could not. None when
 * the interval is 0.
 */
export function startLedgerAuditLoop(opts: { db: PrismaClient; everyMs: number; logger: Logger; metrics?: CowrieMetrics }): PollingLoop[] {
  if (opts.everyMs === 0) return [];
  const { metrics, logger } = opts;
  return [
    startPollingLoop({
      name: 'ledger-audit',
      everyMs: opts.everyMs,
      logger,
      pass: async () => {
        try {
          const audit = await auditLedger(opts.db);
          metrics?.ledgerAuditViolations.set(audit.violations.length);
          metrics?.ledgerAuditLastSuccess.set(Date.now() / 1000);
          if (!audit.ok) logger.error({ count: audit.violations.length, violations: audit.violations.slice(0, 20) }, 'the ledger audit found violations');
        } catch (err) {
          metrics?.ledgerAuditFailures.inc();
          throw err;
        }
      },
    }),
  ];
}
