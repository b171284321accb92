import { z } from 'zod';
import type { AnyRouteSpec } from '../../http/route-registry';
import { PAGED_LIST, ZPageMeta } from '../../openapi/schemas';
import { ZPayoutRailState } from '../health/schemas';
import {
  ZBalance,
  ZBank,
  ZBanksQuery,
  ZBeneficiariesQuery,
  ZBeneficiary,
  ZBeneficiaryBody,
  ZBeneficiaryParams,
  ZPayoutRequest,
  ZPayoutRequestsQuery,
  ZRecipient,
  ZRecipientsQuery,
  ZRejectBody,
  ZRemovedBeneficiary,
  ZRequestParams,
  ZResolveBody,
  ZResolvedAccount,
  ZSettingsBody,
  ZTransaction,
  ZTransactionsQuery,
  ZTransferBody,
  ZWithdrawalBody,
  ZWorkspaceSettings,
} from './schemas';

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

/** The payout actions' shapes: the /v1 routes and the dashboard's document the same requests and answers. */
const transfer = {
  method: 'post',
  path: '/transfers',
  summary: 'Send money to a bank account',
  description:
    'Debits the wallet in `currency`. The row is created `processing` before the rail is called; the answer is the row as the rail left it (`completed` or `failed`), or still `processing` if the rail is slow (a `transfer.*` event follows). `idempotency_key` de-duplicates at the ledger.',
  request: { body: ZTransferBody },
  responses: { 201: { description: 'The ledger transaction (category send, channel transfer)', data: ZTransaction }, ...payoutErrors },
  answersPayout: true,
} as const;
const withdrawal = {
  method: 'post',
  path: '/withdrawals',
  summary: 'Send money to a saved beneficiary',
  request: { body: ZWithdrawalBody },
  responses: { 201: { description: 'The ledger transaction (category payout, channel payout)', data: ZTransaction }, ...payoutErrors },
  answersPayout: true,
} as const;
const banks = {
  method: 'get',
  path: '/banks',
  summary: 'Banks a transfer can go to',
  description: '`country` is accepted; the NGN rail lists Nigerian banks.',
  request: { query: ZBanksQuery },
  responses: { 200: { description: 'Bank records', data: z.array(ZBank) }, ...railErrors },
} as const;
const resolve = {
  method: 'post',
  path: '/banks/resolve',
  summary: 'Resolve the account name of an account number',
  description: 'Pass the returned `accountName` as `account_name` in a transfer.',
  request: { body: ZResolveBody },
  responses: { 200: { description: 'The resolved account', data: ZResolvedAccount }, ...railErrors },
} as const;
const createBeneficiary = {
  method: 'post',
  path: '/beneficiaries',
  summary: 'Save a beneficiary for withdrawals',
  description: 'The name is resolved through bank lookup when omitted.',
  request: { body: ZBeneficiaryBody },
  responses: { 201: { description: 'The beneficiary', data: ZBeneficiary }, ...railErrors },
} as const;
const listBeneficiaries = {
  method: 'get',
  path: '/beneficiaries',
  summary: 'List beneficiaries',
  description: `Newest first, removed ones included (\`active\` false). ${PAGED_LIST}`,
  request: { query: ZBeneficiariesQuery },
  responses: { 200: { description: 'Beneficiaries', data: z.array(ZBeneficiary), meta: ZPageMeta } },
} as const;

const write = { kind: 'api_key', scope: 'payouts:write' } as const;
const read = { kind: 'api_key', scope: 'read' } as const;

/** Payouts, bank lookup, beneficiaries and the ledger views under /v1, with an API key: keyed by their operationId, in the order they are mounted. */
export const payoutApiSpecs = {
  createTransfer: { ...transfer, operationId: 'createTransfer', tag: 'Payouts', auth: write },
  createWithdrawal: { ...withdrawal, operationId: 'createWithdrawal', tag: 'Payouts', auth: write },
  listBanks: { ...banks, operationId: 'listBanks', tag: 'Bank lookup', auth: read },
  resolveBankAccount: { ...resolve, operationId: 'resolveBankAccount', tag: 'Bank lookup', auth: read },
  createBeneficiary: { ...createBeneficiary, operationId: 'createBeneficiary', tag: 'Payouts', auth: write },
  listBeneficiaries: { ...listBeneficiaries, operationId: 'listBeneficiaries', tag: 'Payouts', auth: read },
  listBalances: {
    method: 'get',
    path: '/balances',
    operationId: 'listBalances',
    summary: 'Wallet balances',
    tag: 'Balances and ledger',
    auth: read,
    responses: { 200: { description: 'One row per wallet', data: z.array(ZBalance) } },
  },
  listTransactions: {
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
  listRecipients: {
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
} satisfies Record<string, AnyRouteSpec>;

const session = { kind: 'session' } as const;
// Money leaving the wallet: a guarded change (a sign-in or step-up within STEP_UP_SECONDS).
const guarded = { kind: 'session', stepUp: true } as const;
const tag = 'Payouts (dashboard)';
const approvals = 'Payout approvals (dashboard)';
const keyRequired = {
  400: { description: 'invalid_request: as for /v1, or the Idempotency-Key header is missing (a payout from the dashboard must carry one)' },
};
const becameRequest = {
  202: {
    description:
      'Above the approval threshold of its currency (GET /workspace/settings): not sent, nothing held; a payout request waiting for another owner or admin (a retry with the same Idempotency-Key answers the same request)',
    data: ZPayoutRequest,
  },
};
const notDecidable = {
  400: {
    description:
      'invalid_request: `details.reason` `payout_request_expired` (24 hours passed) or `payout_request_decided` (approved or rejected already; `details.status`)',
  },
};

/**
 * Payouts, bank lookup and beneficiaries for the dashboard (the /v1 actions,
 * acting for the session's workspace and mode), with payout approvals
 * (maker-checker: the side's thresholds and the payout requests made above
 * them): keyed by their operationId, in the order they are mounted. A
 * transfer or withdrawal from the dashboard must carry an Idempotency-Key
 * (the form makes one per confirmation), so a retried click never sends
 * money twice.
 */
export const payoutDashboardSpecs = {
  createSessionTransfer: {
    ...transfer,
    responses: { ...transfer.responses, ...keyRequired, ...becameRequest },
    operationId: 'createSessionTransfer',
    summary: 'Send money to a bank account from the dashboard',
    tag,
    auth: guarded,
    idempotent: true,
  },
  createSessionWithdrawal: {
    ...withdrawal,
    responses: { ...withdrawal.responses, ...keyRequired, ...becameRequest },
    operationId: 'createSessionWithdrawal',
    summary: 'Send money to a saved beneficiary from the dashboard',
    tag,
    auth: guarded,
    idempotent: true,
  },
  getWorkspaceSettings: {
    method: 'get',
    path: '/workspace/settings',
    operationId: 'getWorkspaceSettings',
    summary: "The settings of the session's side of the workspace",
    tag: approvals,
    auth: session,
    responses: { 200: { description: 'The settings', data: ZWorkspaceSettings } },
  },
  updateWorkspaceSettings: {
    method: 'put',
    path: '/workspace/settings',
    operationId: 'updateWorkspaceSettings',
    summary: "Set the payout approval thresholds of the session's side",
    description:
      'Owners only, with a step-up. `payout_approval_thresholds` replaces the whole set (`{}` turns approvals off). Requests already made keep waiting for their decision. Recorded in the audit trail (`workspace.settings_changed`, before and after).',
    tag: approvals,
    auth: { kind: 'session', role: 'owner', stepUp: true },
    request: { body: ZSettingsBody },
    responses: { 200: { description: 'The settings as they are now', data: ZWorkspaceSettings } },
  },
  listPayoutRequests: {
    method: 'get',
    path: '/payout-requests',
    operationId: 'listPayoutRequests',
    summary: 'Payout requests, newest first',
    description: 'Cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
    tag: approvals,
    auth: session,
    request: { query: ZPayoutRequestsQuery },
    responses: { 200: { description: 'A page of payout requests', data: z.array(ZPayoutRequest), meta: ZPageMeta } },
  },
  getPayoutRequest: {
    method: 'get',
    path: '/payout-requests/:id',
    operationId: 'getPayoutRequest',
    summary: 'A payout request',
    tag: approvals,
    auth: session,
    request: { params: ZRequestParams },
    responses: { 200: { description: 'The payout request', data: ZPayoutRequest }, 404: { description: 'not_found: no such request on this side' } },
  },
  approvePayoutRequest: {
    method: 'post',
    path: '/payout-requests/:id/approve',
    operationId: 'approvePayoutRequest',
    summary: 'Approve a payout request: its payout is sent',
    description:
      "An owner or admin other than its requester, with a step-up. The payout is sent as the requester asked for it, under the requester's Idempotency-Key, so it is sent once however often or concurrently it is approved; the balance is checked now (`Exceeds balance` leaves the request pending). Answers the request with its payout's status; a rail failure answers as the payout routes do, with `details.payout_request`.",
    tag: approvals,
    auth: { kind: 'session', role: 'team_admin', stepUp: true },
    idempotent: true,
    request: { params: ZRequestParams },
    responses: {
      200: { description: 'Approved; `transaction` is the payout as the rail left it', data: ZPayoutRequest },
      ...notDecidable,
      403: {
        description:
          'insufficient_scope: `details.reason` `own_payout_request` (its requester cannot approve it) or `requester_not_allowed` (its requester was removed or is no longer an owner or admin: the request stays pending, to reject), or not an owner or admin, or step_up_required',
      },
      404: { description: "not_found: no such request on this side, or the payout's wallet or beneficiary is gone" },
      409: {
        description:
          'idempotency_conflict: `details.reason` `idempotency_key_used`: the body `idempotency_key` of the request already names another payout (`details.transaction`), so its own cannot be sent under it; the request stays pending (reject it)',
      },
      502: { description: 'provider_error: the rail failed or its outcome is unknown (as for a payout; `details.transaction`, `details.payout_request`)' },
      503: { description: 'provider_error: the rail is unavailable' },
      504: { description: 'provider_error: the rail timed out' },
    },
  },
  rejectPayoutRequest: {
    method: 'post',
    path: '/payout-requests/:id/reject',
    operationId: 'rejectPayoutRequest',
    summary: 'Reject a payout request: nothing is sent',
    description: 'An owner or admin; its requester may reject their own (withdrawing it). Recorded in the audit trail with the reason.',
    tag: approvals,
    auth: { kind: 'session', role: 'team_admin' },
    idempotent: true,
    request: { params: ZRequestParams, body: ZRejectBody },
    responses: {
      200: { description: 'Rejected', data: ZPayoutRequest },
      ...notDecidable,
      404: { description: 'not_found: no such request on this side' },
    },
  },
  listSessionBanks: { ...banks, operationId: 'listSessionBanks', tag, auth: session },
  resolveSessionBankAccount: { ...resolve, operationId: 'resolveSessionBankAccount', tag, auth: session },
  createSessionBeneficiary: { ...createBeneficiary, operationId: 'createSessionBeneficiary', tag, auth: session, idempotent: true },
  listSessionBeneficiaries: { ...listBeneficiaries, operationId: 'listSessionBeneficiaries', tag, auth: session },
  removeSessionBeneficiary: {
    method: 'delete',
    path: '/beneficiaries/:id',
    operationId: 'removeSessionBeneficiary',
    summary: 'Remove a beneficiary',
    description: 'It stays on record (payouts sent to it name it) but no withdrawal can use it again.',
    tag,
    auth: session,
    request: { params: ZBeneficiaryParams },
    responses: {
      200: { description: 'Removed', data: ZRemovedBeneficiary },
      404: { description: 'not_found: no such active beneficiary in this workspace' },
    },
  },
  // The breakers /readyz shows, for the session's mode (test mode pays on the sandbox alone).
  listPayoutRails: {
    method: 'get',
    path: '/payout-rails',
    operationId: 'listPayoutRails',
    summary: "Each payout rail of the session's mode and its breaker",
    description:
      'The live payout rails (PAYOUT_RAILS) in their order of preference, each with its circuit breaker: a rail that failed on its own is passed over (open) until its cool-down ends, then one probe payout tries it (half_open), and its success closes it again. ' +
      'With one rail there is nothing to fail over to and its breaker stays closed; in test mode the one rail is the sandbox.',
    tag,
    auth: session,
    responses: { 200: { description: 'One row per rail, in order of preference', data: z.array(ZPayoutRailState) } },
  },
} satisfies Record<string, AnyRouteSpec>;
