import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { AppError, enqueue, jobIdFor, parseAmount, payoutsQueue } from '@cowrie/core';
import {
  TRANSACTION_STATUSES,
  createBeneficiary,
  createTransfer,
  createWithdrawal,
  listBalances,
  listBanks,
  listBeneficiaries,
  listRecipients,
  listTransactions,
  readPayoutAnswer,
  resolveBankAccount,
  withRailErrors,
  type CreatedPayout,
  type PayoutDeps,
} from '@cowrie/payouts';
import { createRails } from '@cowrie/rails';
import type { GatewayDeps } from '../deps';
import { requireScope } from '../http/api-auth';
import { apiKeyOf, sendData } from '../http/respond';
import { parseBody, parseQuery } from '../http/validate';

/** An amount in major units (interface: minimum 1, at most 6 decimals); JSON number or numeric string. */
const ZAmount = z.any().transform((value, ctx) => {
  if (value === undefined) {
    ctx.addIssue({ code: 'invalid_type', expected: 'number', input: value });
    return z.NEVER;
  }
  const parsed = parseAmount(value);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  }
  if (parsed.value.lessThan(1)) {
    ctx.addIssue({ code: 'custom', message: 'must be at least 1' });
    return z.NEVER;
  }
  return parsed.value;
});

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
/** Optional text: null or an empty string count as absent. */
const optionalText = (max: number) =>
  z.string().trim().max(max, `must be at most ${max} characters`).nullish().transform((v) => (v ? v : undefined));
const ZAccountNumber = text(34).regex(/^[A-Za-z0-9]+$/, 'must contain only letters and digits');
const ZBankCode = text(20).regex(/^[A-Za-z0-9-]+$/, 'must contain only letters, digits and dashes');
const ZCurrency = text(10);
const ZId = z.number().int().positive().max(2_147_483_647);

const ZTransferBody = z.object({
  currency: ZCurrency,
  amount: ZAmount,
  account_number: ZAccountNumber,
  bank_code: ZBankCode.nullish().transform((v) => v ?? undefined),
  account_name: optionalText(200),
  bank_name: optionalText(200),
  narration: optionalText(255),
  idempotency_key: optionalText(255),
});

const ZWithdrawalBody = z.object({
  currency: ZCurrency,
  amount: ZAmount,
  beneficiary_id: ZId,
  narration: optionalText(255),
  idempotency_key: optionalText(255),
});

const ZBanksQuery = z.object({ country: z.string().trim().max(64).optional() });
const ZResolveBody = z.object({ account_number: ZAccountNumber, bank_code: ZBankCode, currency: optionalText(10) });
const ZBeneficiaryBody = z.object({ name: optionalText(200), account_number: ZAccountNumber, bank_code: ZBankCode, currency: ZCurrency });
const ZTransactionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(200).optional(),
  status: z.enum(TRANSACTION_STATUSES).optional(),
  currency: z.string().trim().min(1).max(10).optional(),
});

/**
 * Payouts, bank lookup, beneficiaries and the ledger views. A payout's row and
 * hold are committed first; the job is queued after the commit and the
 * gateway waits up to PAYOUT_SYNC_WAIT_MS for the worker, then answers from
 * Postgres, whatever the queue said.
 */
export function registerPayoutRoutes(v1: Router, deps: GatewayDeps) {
  const rails = createRails(deps.config, deps.redis);
  // Every waiting payout request listens for the queue closing; many wait at once.
  deps.queues.payouts.setMaxListeners(0);
  const payoutDeps: PayoutDeps = { db: deps.db, rails, feeSchedule: deps.config.PAYOUT_FEE_SCHEDULE };

  async function runAndAnswer(req: Request, res: Response, payout: CreatedPayout) {
    const id = payout.transaction.id;
    if (payout.created) {
      try {
        const job = await enqueue(deps.queues.payouts, payoutsQueue, 'payout.execute', { transactionId: id }, { jobId: jobIdFor('payout', id) });
        if (deps.config.PAYOUT_SYNC_WAIT_MS > 0) await job.waitUntilFinished(deps.queues.payoutEvents, deps.config.PAYOUT_SYNC_WAIT_MS);
      } catch (err) {
        // Not finished in time, a retry pending, or Redis unreachable (the reconciler
        // queues it later): Postgres says where the payout stands.
        req.log.info({ transactionId: id, reason: (err as Error).message }, 'payout outcome read from Postgres');
      }
    }
    const answer = await readPayoutAnswer(deps.db, id);
    if (answer.providerError) {
      throw new AppError('provider_error', answer.providerError.message, { status: answer.providerError.status, details: { transaction: answer.transaction } });
    }
    sendData(req, res, 201, answer.transaction);
  }

  v1.post('/transfers', requireScope('payouts:write'), async (req, res) => {
    const body = parseBody(ZTransferBody, req);
    const payout = await createTransfer(payoutDeps, {
      workspaceId: apiKeyOf(req).workspaceId,
      currency: body.currency,
      amount: body.amount,
      accountNumber: body.account_number,
      bankCode: body.bank_code,
      accountName: body.account_name,
      bankName: body.bank_name,
      narration: body.narration,
      idempotencyKey: body.idempotency_key,
    });
    await runAndAnswer(req, res, payout);
  });

  v1.post('/withdrawals', requireScope('payouts:write'), async (req, res) => {
    const body = parseBody(ZWithdrawalBody, req);
    const payout = await createWithdrawal(payoutDeps, {
      workspaceId: apiKeyOf(req).workspaceId,
      currency: body.currency,
      amount: body.amount,
      beneficiaryId: body.beneficiary_id,
      narration: body.narration,
      idempotencyKey: body.idempotency_key,
    });
    await runAndAnswer(req, res, payout);
  });

  v1.get('/banks', requireScope('read'), async (req, res) => {
    parseQuery(ZBanksQuery, req);
    sendData(req, res, 200, await listBanks(rails));
  });

  v1.post('/banks/resolve', requireScope('read'), async (req, res) => {
    const body = parseBody(ZResolveBody, req);
    const account = await resolveBankAccount(rails, { accountNumber: body.account_number, bankCode: body.bank_code, currency: body.currency ?? 'NGN' });
    sendData(req, res, 200, account);
  });

  v1.post('/beneficiaries', requireScope('payouts:write'), async (req, res) => {
    const body = parseBody(ZBeneficiaryBody, req);
    const beneficiary = await withRailErrors(() =>
      createBeneficiary({ db: deps.db, rails }, { workspaceId: apiKeyOf(req).workspaceId, name: body.name, accountNumber: body.account_number, bankCode: body.bank_code, currency: body.currency }),
    );
    sendData(req, res, 201, beneficiary);
  });

  v1.get('/beneficiaries', requireScope('read'), async (req, res) => {
    sendData(req, res, 200, await listBeneficiaries(deps.db, apiKeyOf(req).workspaceId));
  });

  v1.get('/balances', requireScope('read'), async (req, res) => {
    sendData(req, res, 200, await listBalances(deps.db, apiKeyOf(req).workspaceId));
  });

  v1.get('/transactions', requireScope('read'), async (req, res) => {
    const query = parseQuery(ZTransactionsQuery, req);
    const page = await listTransactions(deps.db, { workspaceId: apiKeyOf(req).workspaceId, ...query });
    // The envelope's meta carries the page cursor (additive to request_id).
    res.status(200).json({ data: page.items, meta: { request_id: req.id, next_cursor: page.nextCursor } });
  });

  v1.get('/recipients', requireScope('read'), async (req, res) => {
    sendData(req, res, 200, await listRecipients(deps.db, apiKeyOf(req).workspaceId));
  });
}
