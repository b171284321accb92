// The API document's examples: a request and an answer for every /v1
// operation, and a body for every webhook event. They are data a sandbox
// deployment really answers (taken from its answers, ids and references
// fixed), kept beside the document rather than in the route files so one
// table shows them all. openapi-examples.test.ts requires one for every /v1
// operation the registry declares and every event of the catalog, and
// validates each against the schema the document gives it; Redocly's lint
// (no-invalid-media-type-examples) checks them again.

/** What one operation's examples hold: its request (body, query and path parameters, as a client sends them) and the `data` of each success status. */
export interface OperationExamples {
  request?: { body?: unknown; query?: Record<string, unknown>; params?: Record<string, unknown> };
  /** The `data` of the success body, by status; the envelope's `meta` is written around it. */
  responses: Record<number, unknown>;
  /** Fields of the success body's `meta` beside `request_id` (and a page's `next_cursor`), where the route adds some. */
  meta?: Record<string, unknown>;
}

/** The request id of every example answer. */
export const EXAMPLE_REQUEST_ID = '5f0c9a0e-3b1d-4c55-9a7e-2d6f1b8c4e21';
/** The `next_cursor` of an example page. */
export const EXAMPLE_NEXT_CURSOR = 'WzE3OTQ3MjM2OTUyMjAsNl0';

const VERIFICATION_REFERENCE = '8f2ce681-c35f-46f3-a1c6-3180e3bfaec2';
const TRANSFER_REFERENCE = 'snd_86d2a9c741f6ddd5aeb97b69';

const sandboxRaw = (reference: string, amount: string, accountNumber: string, accountName: string, status = 'success') => ({
  rail: 'sandbox',
  amount,
  status,
  currency: 'NGN',
  bank_code: '044',
  reference,
  account_name: accountName,
  transfer_code: 'SBX_681ac07428e5c40c641b',
  account_number: accountNumber,
});

const TRANSFER = {
  id: 6,
  type: 'debit',
  direction: 'out',
  category: 'send',
  channel: 'transfer',
  status: 'completed',
  reference: TRANSFER_REFERENCE,
  idempotencyKey: 'order-1042-payout',
  businessId: 1,
  walletId: 1,
  currency: 'NGN',
  amount: '1500.000000',
  fees: '0.000000',
  title: 'Transfer to Funmilayo Bello',
  description: 'Cowrie transfer',
  provider: 'sandbox',
  providerReference: 'SBX_681ac07428e5c40c641b',
  counterpartyName: 'Funmilayo Bello',
  counterpartyAccount: '0123456789',
  counterpartyBank: 'Access Bank',
  counterpartyEmail: null,
  metadata: { raw: sandboxRaw(TRANSFER_REFERENCE, '1500.00', '0123456789', 'Funmilayo Bello'), provider: 'sandbox' },
  createdAt: '2026-11-27T03:03:15.220Z',
  updatedAt: '2026-11-27T03:03:15.261Z',
};

const FAILED_TRANSFER = {
  ...TRANSFER,
  id: 7,
  status: 'failed',
  reference: 'snd_bf9ff130892f7e4b105e3ff0',
  idempotencyKey: 'snd_bf9ff130892f7e4b105e3ff0',
  title: 'Transfer to 0000000001',
  providerReference: 'SBX_eb17a3f9f689b64d9066',
  counterpartyName: null,
  counterpartyAccount: '0000000001',
  metadata: {
    raw: {
      ...sandboxRaw('snd_bf9ff130892f7e4b105e3ff0', '1500.00', '0000000001', ''),
      status: 'failed',
      reason: 'The destination bank declined the transfer (sandbox)',
    },
    provider: 'sandbox',
  },
};

const REVERSED_TRANSFER = {
  ...TRANSFER,
  status: 'reversed',
  metadata: {
    raw: sandboxRaw(TRANSFER_REFERENCE, '1500.00', '0123456789', 'Funmilayo Bello', 'reversed'),
    provider: 'sandbox',
    reversed_by: 'crd_02e600ca8953a3d43e2c39dd',
  },
  updatedAt: '2026-11-27T03:05:16.652Z',
};

const WITHDRAWAL = {
  ...TRANSFER,
  id: 10,
  category: 'payout',
  channel: 'payout',
  reference: 'snd_42b9d1c29a53e3f800002482',
  idempotencyKey: 'snd_42b9d1c29a53e3f800002482',
  amount: '100.000000',
  title: 'Withdrawal to Babajide Suleiman',
  description: 'Withdrawal to Babajide Suleiman',
  providerReference: 'SBX_c5227784ee4126d9902b',
  counterpartyName: 'Babajide Suleiman',
  counterpartyAccount: '0987654321',
  metadata: { raw: sandboxRaw('snd_42b9d1c29a53e3f800002482', '100.00', '0987654321', 'Babajide Suleiman'), provider: 'sandbox', beneficiary_id: 2 },
};

const SANDBOX_BANK = { bank: 'Cowrie Sandbox Bank', bank_code: '999' };
const CUSTOMER = { name: 'Ada Obi', email: 'ada@example.com' };

const COLLECTION = {
  id: 2,
  reference: 'order-1',
  status: 'pending',
  currency: 'NGN',
  amount: '2500.000000',
  amount_paid: null,
  customer: CUSTOMER,
  account: { ...SANDBOX_BANK, account_number: '9587955745', account_name: 'Acme / Ada Obi', expires_at: '2026-11-27T04:02:50.636Z' },
  expires_at: '2026-11-27T04:02:50.636Z',
  paid_at: null,
  provider: 'sandbox',
  provider_reference: null,
  created_at: '2026-11-27T03:02:50.757Z',
  updated_at: '2026-11-27T03:02:50.757Z',
};

const RESERVED_ACCOUNT = {
  id: 2,
  reference: 'cust-1',
  holder: 'customer',
  status: 'active',
  currency: 'NGN',
  customer: CUSTOMER,
  account: { ...SANDBOX_BANK, account_number: '8944151546', account_name: 'Acme / Ada Obi' },
  provider: 'sandbox',
  created_at: '2026-11-27T03:02:51.051Z',
};

const BENEFICIARY = {
  id: 2,
  name: 'Babajide Suleiman',
  account_number: '0987654321',
  bank_code: '044',
  bank_name: 'Access Bank',
  currency: 'NGN',
  active: true,
  created_at: '2026-11-27T03:03:15.717Z',
};

const customerBody = { customer_name: 'Ada Obi', customer_email: 'ada@example.com' };

/** The examples of every /v1 operation, by operationId. */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  listChannels: {
    responses: {
      200: [
        { id: 'card', label: 'Card', status: 'coming_soon', currencies: ['NGN'] },
        { id: 'collection_va', label: 'Bank transfer to a one-off account', status: 'live', currencies: ['NGN'] },
        { id: 'reserved_va', label: 'Bank transfer to a reserved account', status: 'live', currencies: ['NGN'] },
        { id: 'open_banking', label: 'Open banking', status: 'coming_soon', currencies: ['NGN'] },
      ],
    },
    meta: {
      verification_channels: [
        { id: 'sms', label: 'Codes by SMS', status: 'live' },
        { id: 'voice', label: 'Codes read out in a voice call', status: 'live' },
        { id: 'email', label: 'Codes by email', status: 'live' },
        { id: 'whatsapp', label: 'Codes on WhatsApp', status: 'live' },
      ],
    },
  },
  getCapabilities: {
    responses: {
      200: {
        api_version: 'v1',
        areas: [
          {
            id: 'contact_verification',
            label: 'Contact verification',
            status: 'live',
            endpoints: ['POST /v1/verifications', 'POST /v1/verifications/:reference/check', 'GET /v1/verifications/:reference'],
          },
          { id: 'payouts', label: 'Payouts', status: 'live', endpoints: ['POST /v1/transfers', 'POST /v1/withdrawals'] },
          { id: 'cards', label: 'Cards', status: 'coming_soon', endpoints: ['POST /v1/cards'] },
        ],
        deposit_channels: { card: 'coming_soon', collection_va: 'live', reserved_va: 'live', open_banking: 'coming_soon' },
        verification_channels: { sms: 'live', voice: 'live', email: 'live', whatsapp: 'live' },
      },
    },
  },
  // Always 501: its example is the error's, written for every error status.
  createCard: { request: { body: {} }, responses: {} },
  startVerification: {
    request: { body: { channel: 'sms', destination: '+2348012345678' } },
    responses: {
      201: { reference: VERIFICATION_REFERENCE, channel: 'sms', destination: '+234801****678', expiresAt: '2026-11-27T03:07:49.228Z', status: 'pending' },
    },
  },
  checkVerification: {
    request: { params: { reference: VERIFICATION_REFERENCE }, body: { code: '4821' } },
    responses: { 201: { status: 'failed', reason: 'invalid_code', attempts_remaining: 4 } },
  },
  getVerification: {
    request: { params: { reference: VERIFICATION_REFERENCE } },
    responses: {
      200: {
        reference: VERIFICATION_REFERENCE,
        channel: 'sms',
        destination: '+234801****678',
        status: 'verified',
        attempts: 2,
        max_attempts: 5,
        provider: 'sandbox',
        expires_at: '2026-11-27T03:07:49.228Z',
        verified_at: '2026-11-27T03:02:49.368Z',
        created_at: '2026-11-27T03:02:49.228Z',
      },
    },
  },
  createDeposit: {
    request: { body: { channel: 'collection_va', amount: 1500 } },
    responses: {
      201: {
        channel: 'collection_va',
        status: 'pending',
        account: { ...SANDBOX_BANK, account_number: '9873650969', account_name: 'Acme', expires_at: '2026-11-27T04:02:49.748Z' },
      },
    },
  },
  createCollection: {
    request: { body: { ...customerBody, amount: 2500, reference: 'order-1' } },
    responses: { 201: COLLECTION, 200: COLLECTION },
  },
  getCollection: { request: { params: { id: 2 } }, responses: { 200: COLLECTION } },
  createReservedAccount: {
    request: { body: { ...customerBody, reference: 'cust-1' } },
    responses: { 201: RESERVED_ACCOUNT, 200: RESERVED_ACCOUNT },
  },
  listReservedAccounts: { request: { query: { limit: 1 } }, responses: { 200: [RESERVED_ACCOUNT] } },
  getReservedAccount: { request: { params: { id: 2 } }, responses: { 200: RESERVED_ACCOUNT } },
  createTransfer: {
    request: {
      body: {
        currency: 'NGN',
        amount: 1500,
        account_number: '0123456789',
        bank_code: '044',
        account_name: 'Funmilayo Bello',
        idempotency_key: 'order-1042-payout',
      },
    },
    responses: { 201: TRANSFER },
  },
  createWithdrawal: { request: { body: { currency: 'NGN', amount: 100, beneficiary_id: 2 } }, responses: { 201: WITHDRAWAL } },
  listBanks: {
    request: { query: { country: 'NG' } },
    responses: {
      200: [
        { bankCode: '044', bankName: 'Access Bank' },
        { bankCode: '058', bankName: 'Guaranty Trust Bank' },
      ],
    },
  },
  resolveBankAccount: {
    request: { body: { account_number: '0123456789', bank_code: '044' } },
    responses: { 200: { accountName: 'Funmilayo Bello', accountNumber: '0123456789', bankCode: '044', bankName: 'Access Bank' } },
  },
  createBeneficiary: { request: { body: { account_number: '0987654321', bank_code: '044', currency: 'NGN' } }, responses: { 201: BENEFICIARY } },
  listBeneficiaries: { request: { query: { limit: 1 } }, responses: { 200: [BENEFICIARY] } },
  listBalances: {
    responses: {
      200: [
        { currency: 'NGN', available: '98400.000000', pending: '0.000000', ledger: '98400.000000', status: 'live' },
        { currency: 'EUR', available: '0.000000', pending: '0.000000', ledger: '0.000000', status: 'sandbox' },
      ],
    },
  },
  listTransactions: { request: { query: { limit: 1, status: 'completed', type: 'debit' } }, responses: { 200: [TRANSFER] } },
  listRecipients: {
    request: { query: { limit: 1 } },
    responses: {
      200: [
        {
          name: 'Funmilayo Bello',
          account_number: '0123456789',
          bank_code: '044',
          bank_name: 'Access Bank',
          currency: 'NGN',
          payouts: 3,
          last_sent_at: '2026-11-27T03:03:15.220Z',
        },
      ],
    },
  },
  testTransferIn: {
    request: { body: { account_number: '8944151546', amount: 500 } },
    responses: {
      201: {
        status: 'credited',
        reason: null,
        channel: 'reserved_va',
        account_number: '8944151546',
        amount: '500.000000',
        currency: 'NGN',
        provider_reference: 'sbx_c8d584dc3e03b79de079',
        transaction_reference: 'crd_aa336812db185c7851e650cc',
        collection_id: null,
        reserved_account_id: 2,
      },
    },
  },
  testVerificationCode: {
    request: { params: { reference: VERIFICATION_REFERENCE } },
    responses: { 200: { reference: VERIFICATION_REFERENCE, code: '5181', sent_at: '2026-11-27T03:02:49.301Z' } },
  },
  testReverseTransfer: { request: { params: { reference: TRANSFER_REFERENCE } }, responses: { 200: REVERSED_TRANSFER } },
  testTriggerWebhook: {
    request: { body: { event: 'transfer.completed' } },
    responses: { 201: { event: 'transfer.completed', data: { ...TRANSFER, id: 0, walletId: 0 }, endpoints: 1 } },
  },
};

const VERIFICATION_EVENT = { reference: VERIFICATION_REFERENCE, channel: 'sms', destination: '+234801****678' };

/** The `data` of an example delivery of every webhook event, by event name. */
export const WEBHOOK_EXAMPLES: Readonly<Record<string, unknown>> = {
  'transfer.completed': TRANSFER,
  'transfer.failed': FAILED_TRANSFER,
  'transfer.reversed': REVERSED_TRANSFER,
  'collection.successful': {
    id: 5,
    reference: 'order-7',
    amount: '700.000000',
    currency: 'NGN',
    account_number: '9239436216',
    provider_reference: 'sbx_4f1c2a9be07d3c6e8a15',
    channel: 'collection_va',
    paid_at: '2026-11-27T03:03:18.373Z',
  },
  'collection.expired': {
    id: 6,
    reference: 'order-8',
    amount: '800.000000',
    currency: 'NGN',
    account_number: '9872935014',
    expires_at: '2026-11-27T03:03:17.842Z',
  },
  'reserved_account.created': {
    id: 2,
    reference: 'cust-1',
    account_number: '8944151546',
    bank: 'Cowrie Sandbox Bank',
    customer: CUSTOMER,
    currency: 'NGN',
    holder: 'customer',
  },
  'verification.verified': { ...VERIFICATION_EVENT, status: 'verified', attempts: 2, verified_at: '2026-11-27T03:02:49.368Z' },
  'verification.failed': { ...VERIFICATION_EVENT, status: 'failed', attempts: 5, verified_at: null, reason: 'invalid_code' },
  'verification.expired': { ...VERIFICATION_EVENT, status: 'expired', attempts: 0, verified_at: null },
  'webhook_endpoint.disabled': {
    endpoint_id: 3,
    url: 'https://example.com/webhooks/cowrie',
    reason: 'Every delivery failed since 2026-11-22 03:03 UTC (10 failures); switched off automatically',
    failing_since: '2026-11-22T03:03:12.661Z',
    failures: 10,
    disabled_at: '2026-11-27T03:03:14.760Z',
  },
  ping: { message: 'This is a test event from Cowrie.', endpoint_id: 2 },
};

/** The delivery id and time of the example deliveries. */
export const EXAMPLE_DELIVERY = { id: 'cbccd13e-9e5a-4101-a6f7-716e801843c0', created_at: '2026-11-27T03:03:18.575Z' };

/** The `error` of the example answer of each error status: what a client most often meets there. */
export const ERROR_EXAMPLES: Readonly<Record<number, { code: string; message: string; details?: Record<string, unknown> }>> = {
  400: { code: 'invalid_request', message: 'amount must be at least 1', details: { field: 'amount' } },
  401: { code: 'unauthorized', message: 'Invalid or revoked API key' },
  403: { code: 'insufficient_scope', message: 'This API key lacks the payouts:write scope', details: { required_scope: 'payouts:write' } },
  404: { code: 'not_found', message: 'Not found' },
  409: { code: 'idempotency_conflict', message: 'This Idempotency-Key was reused with a different request body (or method or path)' },
  413: { code: 'invalid_request', message: 'The request body is larger than 102400 bytes', details: { limit_bytes: 102400 } },
  415: { code: 'invalid_request', message: 'The request body must be UTF-8 JSON' },
  429: { code: 'rate_limited', message: 'Rate limit exceeded', details: { limit: 120, retry_after_seconds: 17 } },
  501: { code: 'coming_soon', message: 'Cards are not available yet' },
  502: { code: 'provider_error', message: 'The payout rail failed' },
  503: {
    code: 'provider_error',
    message: 'A service Cowrie depends on was briefly unavailable; retry the request (with the same Idempotency-Key for a write)',
  },
  504: { code: 'provider_error', message: 'The payout rail timed out' },
};
