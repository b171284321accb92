import { createHash } from 'node:crypto';
import type { TRedis } from '@cowrie/core';
import { SANDBOX_BANKS } from './nigerian-banks';
import { RailError, RailInputError, type PayoutRail, type TTransferRequest, type TTransferResult } from './types';

/** Sandbox magic accounts (DESIGN.md: Sandbox rails). */
export const SANDBOX_FAIL_ACCOUNT = '0000000001';
export const SANDBOX_THROW_ACCOUNT = '0000000002';

const FIRST_NAMES = ['Adaeze', 'Babajide', 'Chiamaka', 'Damilola', 'Emeka', 'Funmilayo', 'Gbenga', 'Halima', 'Ifeanyi', 'Jumoke', 'Kelechi', 'Lola', 'Musa', 'Ngozi', 'Obinna', 'Temitope'];
const LAST_NAMES = ['Adeyemi', 'Bello', 'Chukwu', 'Danjuma', 'Eze', 'Fashola', 'Garba', 'Ibrahim', 'Nwosu', 'Okafor', 'Oyelaran', 'Suleiman'];

// A transfer the sandbox "bank" received lives this long, so verifyTransfer can answer for it.
const RECORD_TTL_SECONDS = 7 * 86400;

// Records a transfer once per reference (the rail's idempotency) and counts
// every call that reached it; one key per reference keeps it Cluster-safe.
const RECORD_SCRIPT = `
redis.call('HINCRBY', KEYS[1], 'calls', 1)
redis.call('HSETNX', KEYS[1], 'result', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return redis.call('HGET', KEYS[1], 'result')`;

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

export interface SandboxRailOptions {
  redis: TRedis;
  /** Prefix of Cowrie's Redis keys (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  /** Artificial latency of each transfer after the "bank" received it (PAYOUT_SANDBOX_DELAY_MS). */
  delayMs?: number;
}

/**
 * The deterministic, offline rail (DESIGN.md: Sandbox rails):
 * `0000000001` → the rail reports a failure; `0000000002` → the rail throws
 * (502) before accepting anything; any other 10-digit account → success.
 * Transfers it accepted are kept in Redis by reference, so it is idempotent
 * and `verifyTransfer` can answer after a worker died mid-call.
 */
export function createSandboxRail({ redis, keyPrefix, delayMs = 0 }: SandboxRailOptions): PayoutRail {
  const recordKey = (reference: string) => `${keyPrefix}sandbox:transfer:${reference}`;
  const bankName = (code: string | null) => SANDBOX_BANKS.find((b) => b.bankCode === code)?.bankName;

  function decide(req: TTransferRequest): TTransferResult {
    const base = { rail: 'sandbox', reference: req.reference, account_number: req.accountNumber, bank_code: req.bankCode, amount: req.amount.toFixed(2), currency: req.currency };
    const providerReference = `SBX_${createHash('sha256').update(req.reference).digest('hex').slice(0, 20)}`;
    const fail = (reason: string): TTransferResult => ({ status: 'failed', providerReference, reason, raw: { ...base, status: 'failed', transfer_code: providerReference, reason } });
    if (!/^\d{10}$/.test(req.accountNumber)) return fail('The account number must be 10 digits');
    if (req.bankCode !== null && !bankName(req.bankCode)) return fail(`Unknown bank code ${req.bankCode}`);
    if (req.accountNumber === SANDBOX_FAIL_ACCOUNT) return fail('The destination bank declined the transfer (sandbox)');
    const accountName = req.accountName ?? sandboxAccountName(req.accountNumber);
    return { status: 'completed', providerReference, accountName, raw: { ...base, status: 'success', transfer_code: providerReference, account_name: accountName } };
  }

  return {
    id: 'sandbox',
    async listBanks() {
      return SANDBOX_BANKS.map((b) => ({ ...b }));
    },
    async resolveAccount({ accountNumber, bankCode }) {
      const name = bankName(bankCode);
      if (!name) throw new RailInputError(`Unknown bank_code ${bankCode}; see GET /v1/banks`, 'bank_code');
      if (!/^\d{10}$/.test(accountNumber)) throw new RailInputError('Could not resolve the account: account_number must be 10 digits', 'account_number');
      return { accountName: sandboxAccountName(accountNumber), accountNumber, bankCode, bankName: name };
    },
    async transfer(req) {
      if (req.accountNumber === SANDBOX_THROW_ACCOUNT) {
        throw new RailError(502, 'The payout rail failed (sandbox): the bank did not accept the transfer', { maybeSent: true, raw: { rail: 'sandbox', reference: req.reference, error: 'rail_error' } });
      }
      const stored = (await redis.eval(RECORD_SCRIPT, 1, recordKey(req.reference), JSON.stringify(decide(req)), RECORD_TTL_SECONDS)) as string;
      if (delayMs > 0) await abortable(delayMs, req.signal);
      return JSON.parse(stored) as TTransferResult;
    },
    async verifyTransfer(reference) {
      const stored = await redis.hget(recordKey(reference), 'result');
      return stored ? (JSON.parse(stored) as TTransferResult) : null;
    },
  };
}

/** How many transfer calls for `reference` reached the sandbox (tests prove nothing is sent twice). */
export async function sandboxTransferCalls(redis: TRedis, keyPrefix: string, reference: string): Promise<number> {
  return Number((await redis.hget(`${keyPrefix}sandbox:transfer:${reference}`, 'calls')) ?? 0);
}
