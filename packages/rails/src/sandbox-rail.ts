import { createHash } from 'node:crypto';
import {
  batchPerTurnFor,
  defineStatement,
  firstsThenRepeats,
  insertColumns,
  modelColumns,
  sqlColumn,
  sqlColumns,
  sqlParam,
  type SandboxTransfer,
  type SqlQueryable,
} from '@cowrie/db';
import { SANDBOX_BANKS } from './nigerian-banks';
import { RailError, RailInputError, type PayoutRail, type TransferRequest, type TransferResult } from './types';

/** Sandbox magic accounts (docs/design.md: Sandbox rails). */
export const SANDBOX_FAIL_ACCOUNT = '0000000001';
export const SANDBOX_THROW_ACCOUNT = '0000000002';
export const SANDBOX_REVERSE_ACCOUNT = '0000000003';

/** How long after it completed the sandbox bank returns a transfer to SANDBOX_REVERSE_ACCOUNT. */
const SANDBOX_REVERSAL_DELAY_MS = 2_000;

const FIRST_NAMES = [
  'Adaeze',
  'Babajide',
  'Chiamaka',
  'Damilola',
  'Emeka',
  'Funmilayo',
  'Gbenga',
  'Halima',
  'Ifeanyi',
  'Jumoke',
  'Kelechi',
  'Lola',
  'Musa',
  'Ngozi',
  'Obinna',
  'Temitope',
];
const LAST_NAMES = ['Adeyemi', 'Bello', 'Chukwu', 'Danjuma', 'Eze', 'Fashola', 'Garba', 'Ibrahim', 'Nwosu', 'Okafor', 'Oyelaran', 'Suleiman'];

const sandboxTransferColumns = modelColumns<SandboxTransfer>()('SandboxTransfer', { reference: sqlColumn.text, calls: sqlColumn.int, result: sqlColumn.json });
/** The rail's answer, as it was recorded (a TransferResult). */
const TRANSFER_RESULT = { result: sandboxTransferColumns.result.as<TransferResult>() };

// Records transfers once per reference (the rail's idempotency: the first
// answer is every call's answer) and counts every call that reached it: the
// calls of one turn as one statement, in reference order (two batches meeting
// on a reference queue instead of deadlocking).
const RECORD_TRANSFERS = defineStatement({
  name: 'cowrie-sandbox-transfers',
  params: { transfers: sqlColumns({ reference: sqlParam.text, result: sqlParam.json, reverseAt: sqlParam.timestamp.orNull }) },
  text: (p) => `
  INSERT INTO "SandboxTransfer" (${insertColumns<SandboxTransfer>()('reference', 'calls', 'result', 'reverseAt', 'createdAt', 'updatedAt')})
  SELECT i."reference", 1, i."result", i."reverseAt", now(), now() FROM ${p.transfers.unnest} AS i(${p.transfers.columns}) ORDER BY i."reference"
  ON CONFLICT ("reference") DO UPDATE SET "calls" = "SandboxTransfer"."calls" + 1, "updatedAt" = now()
  RETURNING "reference", "result"`,
  result: { reference: sandboxTransferColumns.reference, ...TRANSFER_RESULT },
});

interface TransferRecord {
  reference: string;
  result: TransferResult;
  /** When the bank returns it (SANDBOX_REVERSE_ACCOUNT), else null. */
  reverseAt: Date | null;
}

/** RECORD_TRANSFERS for distinct references: the recorded answer of each. */
async function recordDistinct(sql: SqlQueryable, records: readonly TransferRecord[]): Promise<TransferResult[]> {
  const { rows } = await RECORD_TRANSFERS.run(sql, { transfers: [...records] });
  const byReference = new Map(rows.map((row) => [row.reference, row.result]));
  return records.map((r) => byReference.get(r.reference)!);
}

/** A reference sent twice in one batch is recorded again after the first, as a second call a moment later. */
const recordBatch = (sql: SqlQueryable, records: readonly TransferRecord[]) =>
  firstsThenRepeats(
    records,
    (r) => r.reference,
    (distinct) => recordDistinct(sql, distinct),
  );

const transferRecorder = batchPerTurnFor(recordBatch, { oneByOneWhenRefused: true });

const FIND_TRANSFER = defineStatement({
  name: 'cowrie-sandbox-verify',
  params: { reference: sqlParam.text },
  text: (p) => `SELECT "result", ("notifiedAt" IS NOT NULL OR "reverseAt" <= now()) AS "returned" FROM "SandboxTransfer" WHERE "reference" = ${p.reference}`,
  result: { ...TRANSFER_RESULT, returned: sqlColumn.boolean },
});

/** A transfer the sandbox bank returned: verify answers it `reversed`, as Paystack's does. */
export function sandboxReturnedResult(result: TransferResult): TransferResult {
  return { ...result, status: 'reversed', reason: 'The bank returned the transfer (sandbox)', raw: { ...result.raw, status: 'reversed' } };
}

/**
 * The sandbox bank's reversals that are due and not yet notified, claimed
 * (SKIP LOCKED: replicas share them): each is handed to the notification path
 * once. `reverseAt` is cleared by the claim (the index then holds only what is
 * still to come) and `notifiedAt` keeps that it was returned.
 */
const CLAIM_DUE_REVERSALS = defineStatement({
  name: 'cowrie-sandbox-claim-reversals',
  params: { now: sqlParam.timestamp, limit: sqlParam.int },
  text: (p) => `UPDATE "SandboxTransfer" s SET "notifiedAt" = ${p.now}, "reverseAt" = NULL, "updatedAt" = ${p.now} WHERE s."reference" IN (
           SELECT "reference" FROM "SandboxTransfer" WHERE "reverseAt" <= ${p.now} ORDER BY "reverseAt" LIMIT ${p.limit} FOR UPDATE SKIP LOCKED)
         RETURNING s."reference", s."result"`,
  result: { reference: sandboxTransferColumns.reference, ...TRANSFER_RESULT },
});

const UNCLAIM_REVERSAL = defineStatement({
  name: 'cowrie-sandbox-unclaim-reversal',
  params: { reference: sqlParam.text, at: sqlParam.timestamp },
  text: (p) => `UPDATE "SandboxTransfer" SET "reverseAt" = ${p.at}, "notifiedAt" = NULL WHERE "reference" = ${p.reference}`,
});

/** A reversal the sandbox bank sends as a notification: the transfer's reference and the notification's body. */
export interface SandboxReversal {
  reference: string;
  payload: Record<string, unknown>;
}

/** The notification the sandbox bank sends about a transfer it returned. */
const reversalNotice = (row: { reference: string; result: TransferResult }): SandboxReversal => ({
  reference: row.reference,
  payload: { event: 'transfer.reversed', data: sandboxReturnedResult(row.result).raw },
});

/**
 * Hands each due sandbox reversal to `notify` (the path a provider's
 * notification takes), once. When `notify` cannot take one, the pass stops:
 * that one and every one claimed after it are handed again on a later call;
 * a process that dies in between loses the notification, as a provider's can
 * be lost, and the reversal watch finds the reversal by asking the rail.
 */
export async function sendDueSandboxReversals(
  sql: SqlQueryable,
  notify: (reversal: SandboxReversal) => Promise<void>,
  { now = new Date(), limit = 100 }: { now?: Date; limit?: number } = {},
): Promise<number> {
  const { rows } = await CLAIM_DUE_REVERSALS.run(sql, { now, limit });
  for (const [i, row] of rows.entries()) {
    try {
      await notify(reversalNotice(row));
    } catch (err) {
      for (const notSent of rows.slice(i)) await UNCLAIM_REVERSAL.run(sql, { reference: notSent.reference, at: now });
      throw err;
    }
  }
  return rows.length;
}

// A completed transfer the bank has not returned yet is returned as of `now`
// (one already returned, or due to be, keeps its time); RETURNING names the
// transfers that are, or now will be, returned.
const RETURN_TRANSFER = defineStatement({
  name: 'cowrie-sandbox-return-transfer',
  params: { reference: sqlParam.text, now: sqlParam.timestamp },
  text: (p) => `UPDATE "SandboxTransfer" SET
           "reverseAt" = CASE WHEN "notifiedAt" IS NULL THEN LEAST(COALESCE("reverseAt", ${p.now}), ${p.now}) ELSE "reverseAt" END,
           "updatedAt" = ${p.now}
         WHERE "reference" = ${p.reference} AND "result"->>'status' = 'completed'
         RETURNING "reference", "result"`,
  result: { reference: sandboxTransferColumns.reference, ...TRANSFER_RESULT },
});

/**
 * The sandbox bank returns a completed transfer now (the reverse test helper):
 * from here on verify answers it `reversed`, and the due-reversal loop sends
 * its notification (sendDueSandboxReversals) unless it was sent already. The
 * answer is that notification, for a caller that applies it at once; null
 * when the bank holds no completed transfer with this reference.
 */
export async function returnSandboxTransfer(sql: SqlQueryable, reference: string, now = new Date()): Promise<SandboxReversal | null> {
  const row = (await RETURN_TRANSFER.run(sql, { reference, now })).rows[0];
  return row ? reversalNotice(row) : null;
}

const TRANSFER_CALLS = defineStatement({
  name: 'cowrie-sandbox-transfer-calls',
  params: { reference: sqlParam.text },
  text: (p) => `SELECT "calls" FROM "SandboxTransfer" WHERE "reference" = ${p.reference}`,
  result: { calls: sandboxTransferColumns.calls },
});

/** The stable account name the sandbox resolves a 10-digit number to. */
export function sandboxAccountName(accountNumber: string): string {
  const n = Number(accountNumber);
  return `${FIRST_NAMES[n % FIRST_NAMES.length]} ${LAST_NAMES[Math.floor(n / FIRST_NAMES.length) % LAST_NAMES.length]}`;
}

function abortable(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const sandboxBankName = (code: string | null) => SANDBOX_BANKS.find((b) => b.bankCode === code)?.bankName;

/**
 * What the sandbox bank answers a transfer request (the magic accounts aside
 * from 0000000002, which never reaches it): a failure for a malformed number,
 * an unknown bank or 0000000001, else a completion paid to the account's
 * stable name. Pure: the rail records it; the sample events reuse it.
 */
export function sandboxTransferResult(
  req: Pick<TransferRequest, 'reference' | 'amount' | 'currency' | 'accountNumber' | 'bankCode' | 'accountName'>,
): TransferResult {
  const base = {
    rail: 'sandbox',
    reference: req.reference,
    account_number: req.accountNumber,
    bank_code: req.bankCode,
    amount: req.amount.toFixed(2),
    currency: req.currency,
  };
  const providerReference = `SBX_${createHash('sha256').update(req.reference).digest('hex').slice(0, 20)}`;
  const fail = (reason: string): TransferResult => ({
    status: 'failed',
    providerReference,
    reason,
    raw: { ...base, status: 'failed', transfer_code: providerReference, reason },
  });
  if (!/^\d{10}$/.test(req.accountNumber)) return fail('The account number must be 10 digits');
  if (req.bankCode !== null && !sandboxBankName(req.bankCode)) return fail(`Unknown bank code ${req.bankCode}`);
  if (req.accountNumber === SANDBOX_FAIL_ACCOUNT) return fail('The destination bank declined the transfer (sandbox)');
  const accountName = req.accountName ?? sandboxAccountName(req.accountNumber);
  return {
    status: 'completed',
    providerReference,
    accountName,
    raw: { ...base, status: 'success', transfer_code: providerReference, account_name: accountName },
  };
}

export interface SandboxRailOptions {
  /** Where the sandbox "bank" keeps what it received (the SandboxTransfer table). */
  sql: SqlQueryable;
  /** Artificial latency of each transfer after the "bank" received it, and of each verify (PAYOUT_SANDBOX_DELAY_MS). */
  delayMs?: number;
}

/**
 * The deterministic, offline rail (docs/design.md: Sandbox rails):
 * `0000000001` → the rail reports a failure; `0000000002` → the rail throws
 * (502) before accepting anything, and says so (nothing was sent);
 * `0000000003` → success, then the bank returns it about 2 s later (verify
 * answers `reversed`, and sendDueSandboxReversals notifies); any other
 * 10-digit account → success. Transfers it accepted are kept in Postgres by
 * reference, as an outside bank keeps them: it is idempotent, and
 * `verifyTransfer` answers after a worker died mid-call or Redis lost its data.
 */
export function createSandboxRail({ sql, delayMs = 0 }: SandboxRailOptions): PayoutRail {
  return {
    id: 'sandbox',
    async listBanks() {
      return SANDBOX_BANKS.map((b) => ({ ...b }));
    },
    async resolveAccount({ accountNumber, bankCode }) {
      const name = sandboxBankName(bankCode);
      if (!name) throw new RailInputError(`Unknown bank_code ${bankCode}; see GET /v1/banks`, 'bank_code');
      if (!/^\d{10}$/.test(accountNumber)) throw new RailInputError('Could not resolve the account: account_number must be 10 digits', 'account_number');
      return { accountName: sandboxAccountName(accountNumber), accountNumber, bankCode, bankName: name };
    },
    async transfer(req) {
      if (req.accountNumber === SANDBOX_THROW_ACCOUNT) {
        // Refused before the bank took anything: certainly not sent, so the payout fails at once.
        throw new RailError(502, 'The payout rail failed (sandbox): the bank did not accept the transfer', {
          provider: 'sandbox',
          maybeSent: false,
          raw: { rail: 'sandbox', reference: req.reference, error: 'rail_error' },
        });
      }
      req.onSend?.();
      const result = sandboxTransferResult(req);
      const reverseAt =
        result.status === 'completed' && req.accountNumber === SANDBOX_REVERSE_ACCOUNT ? new Date(Date.now() + SANDBOX_REVERSAL_DELAY_MS) : null;
      const recorded = await transferRecorder(sql).load({ reference: req.reference, result, reverseAt });
      if (delayMs > 0) await abortable(delayMs, req.signal);
      return recorded;
    },
    async verifyTransfer(reference, options = {}) {
      if (delayMs > 0) await abortable(delayMs, options.signal);
      const found = (await FIND_TRANSFER.run(sql, { reference })).rows[0];
      if (!found) return null;
      return found.returned ? sandboxReturnedResult(found.result) : found.result;
    },
  };
}

/** How many transfer calls for `reference` reached the sandbox (tests prove nothing is sent twice). */
export async function sandboxTransferCalls(sql: SqlQueryable, reference: string): Promise<number> {
  const { rows } = await TRANSFER_CALLS.run(sql, { reference });
  return rows[0]?.calls ?? 0;
}
