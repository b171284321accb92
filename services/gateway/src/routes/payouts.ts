import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  AppError,
  accountNumberField,
  amountField,
  bankCodeField,
  currencyCodeField,
  enqueueAndWait,
  idField,
  optionalTextField,
  queryTimeField,
  withRailErrors,
  type Mode,
} from '@cowrie/core';
import {
  createBeneficiary,
  createTransfer,
  createWithdrawal,
  listBalances,
  listBanks,
  listBeneficiaries,
  listRecipients,
  BENEFICIARY_PAGE_SIZES,
  RECIPIENT_PAGE_SIZES,
  listTransactions,
  TRANSACTION_TYPES,
  payoutAnswerFromOutcome,
  readPayoutAnswer,
  resolveBankAccount,
  renderBeneficiary,
  type CreatedPayout,
  type PayoutAnswer,
  type PayoutDeps,
  type RenderedTransaction,
  payoutJobId,
  payoutsQueue,
} from '@cowrie/payouts';
import { ZTransaction as ZTransactionData, ZTransactionStatus as ZTransactionStatusData } from '@cowrie/events';
import { renderBalance } from '@cowrie/ledger';
import type { Bank, ResolvedAccount } from '@cowrie/rails';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { apiKeyOf, sendData, sendPage } from '../http/respond';
import { PAGED_LIST, ZAmount as ZRenderedAmount, ZPageMeta, ZTimestamp, named, pageQueryFields, pageQueryFieldsOf, responseOf } from '../openapi/schemas';

const optionalCurrency = currencyCodeField.nullish().transform((v) => v ?? undefined);

const ZTransferBody = named(
  'CreateTransferRequest',
  z.object({
    currency: currencyCodeField,
    amount: amountField(),
    account_number: accountNumberField,
    bank_code: bankCodeField.nullish().transform((v) => v ?? undefined),
    account_name: optionalTextField(200),
    bank_name: optionalTextField(200),
    narration: optionalTextField(255),
    idempotency_key: optionalTextField(255),
  }),
);

const ZWithdrawalBody = named(
  'CreateWithdrawalRequest',
  z.object({
    currency: currencyCodeField,
    amount: amountField(),
    beneficiary_id: idField,
    narration: optionalTextField(255),
    idempotency_key: optionalTextField(255),
  }),
);

const ZBanksQuery = z.object({ country: z.string().trim().max(64).optional().meta({ description: 'Accepted, not used: the NGN rail lists Nigerian banks' }) });
const ZResolveBody = named('ResolveBankAccountRequest', z.object({ account_number: accountNumberField, bank_code: bankCodeField, currency: optionalCurrency }));
const ZBeneficiaryBody = named(
  'CreateBeneficiaryRequest',
  z.object({ name: optionalTextField(200), account_number: accountNumberField, bank_code: bankCodeField, currency: currencyCodeField }),
);
const ZTransactionStatus = named('TransactionStatus', ZTransactionStatusData);
/** Which transactions: the filters of the list and of the dashboard's export. */
export const ZTransactionFilters = z.object({
  status: ZTransactionStatus.optional().meta({ description: 'Only transactions with this status' }),
  currency: currencyCodeField.optional(),
  type: z.enum(TRANSACTION_TYPES).optional().meta({ description: 'debit (payouts) or credit (money in)' }),
  from: queryTimeField.optional().meta({ description: 'Only transactions created at or after this time (ISO 8601 with its offset)' }),
  to: queryTimeField.optional().meta({ description: 'Only transactions created before this time' }),
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Part of a reference (Cowrie's, the idempotency key or the rail's) or of the counterparty's name or account, any case" }),
});
const ZBeneficiariesQuery = z.object(pageQueryFieldsOf(BENEFICIARY_PAGE_SIZES));
const ZRecipientsQuery = z.object(pageQueryFieldsOf(RECIPIENT_PAGE_SIZES));
export const ZTransactionsQuery = ZTransactionFilters.extend({
  ...pageQueryFields,
});

/** A ledger transaction: the answer of a payout, a row of /v1/transactions, the data of transfer.* events (the webhook events' catalog declares it). */
export const ZTransaction = named('Transaction', responseOf<RenderedTransaction>()(ZTransactionData));
const ZBank = named('Bank', responseOf<Bank>()(z.object({ bankCode: z.string(), bankName: z.string() })));
const ZResolvedAccount = named(
  'ResolvedBankAccount',
  responseOf<ResolvedAccount>()(z.object({ accountName: z.string(), accountNumber: z.string(), bankCode: z.string(), bankName: z.string() })),
);
const ZBeneficiary = named(
  'Beneficiary',
  responseOf<ReturnType<typeof renderBeneficiary>>()(
    z.object({
      id: z.number().int(),
      name: z.string(),
      account_number: z.string(),
      bank_code: z.string(),
      bank_name: z.string(),
      currency: z.string(),
      active: z.boolean(),
      created_at: ZTimestamp,
    }),
  ),
);
export const ZBalance = named(
  'Balance',
  responseOf<ReturnType<typeof renderBalance>>()(
    z.object({
      currency: z.string(),
      available: ZRenderedAmount,
      pending: ZRenderedAmount,
      ledger: ZRenderedAmount,
      status: z.enum(['live', 'sandbox', 'coming_soon']),
    }),
  ),
);
const ZRecipient = named(
  'Recipient',
  responseOf<Awaited<ReturnType<typeof listRecipients>>['items'][number]>()(
    z.object({
      name: z.string().nullable(),
      account_number: z.string(),
      bank_code: z.string().nullable(),
      bank_name: z.string().nullable(),
      currency: z.string(),
      payouts: z.number().int(),
      last_sent_at: ZTimestamp,
    }),
  ),
);

const payoutErrors = {
  400: { description: 'invalid_request: invalid field, unsupported currency, or `Exceeds balance: <available> <currency>`' },
  404: { description: 'not_found: no wallet for the currency, or `Beneficiary not found`' },
  501: { description: 'coming_soon: payouts in this currency are not available yet' },
  502: {
    description:
      'provider_error: the rail failed (details.transaction is the failed row, kept); or its outcome is unknown (details.outcome `unknown`, details.reference): the row stays processing with its hold until the rail confirms, and a transfer.* event follows',
  },
  503: { description: 'provider_error: the rail is not configured or unavailable (details.transaction)' },
  504: {
    description: 'provider_error: the rail timed out (details.transaction); when it may have received the transfer, details.outcome is `unknown` as for 502',
  },
};
const railErrors = {
  502: { description: 'provider_error: rail failure' },
  503: { description: 'provider_error: rail not configured or unavailable' },
  504: { description: 'provider_error: rail timeout' },
};

/** Whom a payout request acts for: the workspace and mode of its API key (/v1) or of its session (the dashboard). */
export type PayoutActor = (req: Request) => { workspaceId: number; mode: Mode };

/** Called once a request opened a new payout (not for a replay that found one), before its job is queued. */
export type PayoutOpened = (req: Request, payout: CreatedPayout['transaction'], kind: 'transfer' | 'withdrawal') => Promise<void>;

/**
 * Payouts, bank lookup and beneficiaries: one handler per action, shared by
 * the /v1 routes (API key) and the dashboard's (session), so both answer by
 * the same rules. A payout's row and hold are committed first; the job is
 * queued after the commit and the gateway waits up to PAYOUT_SYNC_WAIT_MS for
 * the worker. It answers with the worker's outcome, which carries the
 * committed row, and reads the row from Postgres when there is none (a
 * timeout, a failed job).
 */
export function createPayoutHandlers(deps: GatewayDeps) {
  const modeRails = deps.payoutRails;

  async function runPayout(req: Request, payout: CreatedPayout, opened: () => Promise<void>): Promise<RenderedTransaction> {
    const id = payout.transaction.id;
    let answer: PayoutAnswer | null = null;
    if (payout.created) {
      await opened();
      const run = await enqueueAndWait(
        deps.queues.payouts,
        payoutsQueue,
        'payout.execute',
        { transactionId: id },
        { jobId: payoutJobId(payout.transaction), waitMs: deps.config.PAYOUT_SYNC_WAIT_MS },
      );
      if (run.kind === 'completed') answer = payoutAnswerFromOutcome(run.value);
      // Redis unreachable (the reconciler queues it later): Postgres says where the payout stands.
      else if (run.kind === 'not_queued') req.log.info({ transactionId: id, reason: run.error.message }, 'payout outcome read from Postgres');
    }
    answer ??= await readPayoutAnswer(deps.sql, id);
    if (answer.providerError) {
      const { status, message, details } = answer.providerError;
      throw new AppError('provider_error', message, { status, details: { transaction: answer.transaction, ...details } });
    }
    return answer.transaction;
  }

  async function runAndAnswer(req: Request, res: Response, payout: CreatedPayout, opened: () => Promise<void>) {
    sendData(req, res, 201, await runPayout(req, payout, opened));
  }

  /**
   * The handlers acting for `actorOf`'s workspace, on its mode's rails (a test
   * key or test session reaches the sandbox rail only); `onOpened` hears of
   * each payout they open (the dashboard's audit trail).
   */
  return (actorOf: PayoutActor, onOpened?: PayoutOpened) => {
    const opened = (req: Request, payout: CreatedPayout, kind: 'transfer' | 'withdrawal') => () =>
      onOpened ? onOpened(req, payout.transaction, kind) : Promise.resolve();
    const depsFor = (req: Request): PayoutDeps => ({
      db: deps.db,
      sql: deps.sql,
      rails: modeRails[actorOf(req).mode],
      feeSchedule: deps.config.PAYOUT_FEE_SCHEDULE,
    });
    const railsFor = (req: Request) => modeRails[actorOf(req).mode];
    return {
      /** The payout rules' deps on the actor's side (a payout request's approval opens its payout with them). */
      payoutDeps: depsFor,
      /** Runs a payout opened elsewhere (an approved payout request) as the routes do: its answer, or the provider_error they throw. */
      run: (req: Request, payout: CreatedPayout, kind: 'transfer' | 'withdrawal') => runPayout(req, payout, opened(req, payout, kind)),
      async transfer({ body }: { body: z.output<typeof ZTransferBody> }, req: Request, res: Response) {
        const payout = await createTransfer(depsFor(req), {
          workspaceId: actorOf(req).workspaceId,
          currency: body.currency,
          amount: body.amount,
          accountNumber: body.account_number,
          bankCode: body.bank_code,
          accountName: body.account_name,
          bankName: body.bank_name,
          narration: body.narration,
          idempotencyKey: body.idempotency_key,
          request: req.idempotency,
        });
        await runAndAnswer(req, res, payout, opened(req, payout, 'transfer'));
      },
      async withdrawal({ body }: { body: z.output<typeof ZWithdrawalBody> }, req: Request, res: Response) {
        const payout = await createWithdrawal(depsFor(req), {
          workspaceId: actorOf(req).workspaceId,
          currency: body.currency,
          amount: body.amount,
          beneficiaryId: body.beneficiary_id,
          narration: body.narration,
          idempotencyKey: body.idempotency_key,
          request: req.idempotency,
        });
        await runAndAnswer(req, res, payout, opened(req, payout, 'withdrawal'));
      },
      async banks(_input: unknown, req: Request, res: Response) {
        sendData(req, res, 200, await listBanks(railsFor(req)));
      },
      async resolve({ body }: { body: z.output<typeof ZResolveBody> }, req: Request, res: Response) {
        const account = await resolveBankAccount(railsFor(req), {
          accountNumber: body.account_number,
          bankCode: body.bank_code,
          currency: body.currency ?? 'NGN',
        });
        sendData(req, res, 200, account);
      },
      async createBeneficiary({ body }: { body: z.output<typeof ZBeneficiaryBody> }, req: Request, res: Response) {
        const beneficiary = await withRailErrors(() =>
          createBeneficiary(
            { db: deps.db, rails: railsFor(req) },
            { workspaceId: actorOf(req).workspaceId, name: body.name, accountNumber: body.account_number, bankCode: body.bank_code, currency: body.currency },
          ),
        );
        sendData(req, res, 201, beneficiary);
      },
      async listBeneficiaries({ query }: { query: z.output<typeof ZBeneficiariesQuery> }, req: Request, res: Response) {
        sendPage(req, res, await listBeneficiaries(deps.db, { workspaceId: actorOf(req).workspaceId, ...query }));
      },
    };
  };
}

/** The payout routes' shapes: the /v1 routes and the dashboard's document the same requests and answers. */
export const payoutSpecs = {
  transfer: {
    method: 'post',
    path: '/transfers',
    summary: 'Send money to a bank account',
    description:
      'Debits the wallet in `currency`. The row is created `processing` before the rail is called; the answer is the row as the rail left it (`completed` or `failed`), or still `processing` if the rail is slow (a `transfer.*` event follows). `idempotency_key` de-duplicates at the ledger.',
    request: { body: ZTransferBody },
    responses: { 201: { description: 'The ledger transaction (category send, channel transfer)', data: ZTransaction }, ...payoutErrors },
  },
  withdrawal: {
    method: 'post',
    path: '/withdrawals',
    summary: 'Send money to a saved beneficiary',
    request: { body: ZWithdrawalBody },
    responses: { 201: { description: 'The ledger transaction (category payout, channel payout)', data: ZTransaction }, ...payoutErrors },
  },
  banks: {
    method: 'get',
    path: '/banks',
    summary: 'Banks a transfer can go to',
    description: '`country` is accepted; the NGN rail lists Nigerian banks.',
    request: { query: ZBanksQuery },
    responses: { 200: { description: 'Bank records', data: z.array(ZBank) }, ...railErrors },
  },
  resolve: {
    method: 'post',
    path: '/banks/resolve',
    summary: 'Resolve the account name of an account number',
    description: 'Pass the returned `accountName` as `account_name` in a transfer.',
    request: { body: ZResolveBody },
    responses: { 200: { description: 'The resolved account', data: ZResolvedAccount }, ...railErrors },
  },
  createBeneficiary: {
    method: 'post',
    path: '/beneficiaries',
    summary: 'Save a beneficiary for withdrawals',
    description: 'The name is resolved through bank lookup when omitted.',
    request: { body: ZBeneficiaryBody },
    responses: { 201: { description: 'The beneficiary', data: ZBeneficiary }, ...railErrors },
  },
  listBeneficiaries: {
    method: 'get',
    path: '/beneficiaries',
    summary: 'List beneficiaries',
    description: `Newest first, removed ones included (\`active\` false). ${PAGED_LIST}`,
    request: { query: ZBeneficiariesQuery },
    responses: { 200: { description: 'Beneficiaries', data: z.array(ZBeneficiary), meta: ZPageMeta } },
  },
} as const;

/** Payouts, bank lookup, beneficiaries and the ledger views under /v1, with an API key. */
export function registerPayoutRoutes(v1: RouteMount, deps: GatewayDeps, handlersFor: ReturnType<typeof createPayoutHandlers>) {
  const handlers = handlersFor((req) => apiKeyOf(req));
  const tag = 'Payouts';
  const write = { kind: 'api_key', scope: 'payouts:write' } as const;
  const read = { kind: 'api_key', scope: 'read' } as const;

  v1.route({ ...payoutSpecs.transfer, operationId: 'createTransfer', tag, auth: write }, handlers.transfer);
  v1.route({ ...payoutSpecs.withdrawal, operationId: 'createWithdrawal', tag, auth: write }, handlers.withdrawal);
  v1.route({ ...payoutSpecs.banks, operationId: 'listBanks', tag: 'Bank lookup', auth: read }, handlers.banks);
  v1.route({ ...payoutSpecs.resolve, operationId: 'resolveBankAccount', tag: 'Bank lookup', auth: read }, handlers.resolve);
  v1.route({ ...payoutSpecs.createBeneficiary, operationId: 'createBeneficiary', tag, auth: write }, handlers.createBeneficiary);
  v1.route({ ...payoutSpecs.listBeneficiaries, operationId: 'listBeneficiaries', tag, auth: read }, handlers.listBeneficiaries);

  v1.route(
    {
      method: 'get',
      path: '/balances',
      operationId: 'listBalances',
      summary: 'Wallet balances',
      tag: 'Balances and ledger',
      auth: read,
      responses: { 200: { description: 'One row per wallet', data: z.array(ZBalance) } },
    },
    async (_input, req, res) => {
      sendData(req, res, 200, await listBalances(deps.db, apiKeyOf(req).workspaceId));
    },
  );

  v1.route(
    {
      method: 'get',
      path: '/transactions',
      operationId: 'listTransactions',
      summary: 'Ledger transactions, newest first',
      description: PAGED_LIST,
      tag: 'Balances and ledger',
      auth: read,
      request: { query: ZTransactionsQuery },
      responses: {
        200: {
          description: 'A page of transactions',
          data: z.array(ZTransaction),
          meta: ZPageMeta,
        },
      },
    },
    async ({ query }, req, res) => {
      const page = await listTransactions(deps.db, { workspaceId: apiKeyOf(req).workspaceId, ...query });
      sendPage(req, res, page);
    },
  );

  v1.route(
    {
      method: 'get',
      path: '/recipients',
      operationId: 'listRecipients',
      summary: 'Accounts this workspace has paid, most recent first',
      description: `One per account, bank and currency, with the latest name used; failed payouts do not count. ${PAGED_LIST} A recipient paid again while you page moves to the front.`,
      tag: 'Balances and ledger',
      auth: read,
      request: { query: ZRecipientsQuery },
      responses: { 200: { description: 'Recipients', data: z.array(ZRecipient), meta: ZPageMeta } },
    },
    async ({ query }, req, res) => {
      sendPage(req, res, await listRecipients(deps.db, { workspaceId: apiKeyOf(req).workspaceId, ...query }));
    },
  );
}
