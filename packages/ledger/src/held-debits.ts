import { AppError, Decimal, formatAmount, IDEMPOTENCY_RETENTION_MS } from '@cowrie/core';
import type { EmittedEvent } from '@cowrie/events';
import {
  batchPerTurnFor,
  columnList,
  defineStatement,
  firstsThenRepeats,
  isSqlStatementRefused,
  isUniqueViolation,
  insertColumns,
  OUTBOX_EVENT_COLUMNS,
  orNullColumns,
  sqlColumn,
  sqlColumns,
  sqlParam,
  type DbOrTx,
  type InputOf,
  type LedgerTransaction,
  type Prisma,
  type SqlPool,
  type SqlQueryable,
  type StatementRow,
} from '@cowrie/db';
import { newReference } from './references';
import { LEDGER_ENTRY_COLUMNS, ledgerTransactionColumns } from './transaction-rows';

/**
 * Debits and their holds: the ledger's rules for money going out. A debit's
 * `processing` row and its hold are one statement (the conditional update of
 * the wallet is the overdraft guard), and closing the hold, settled or
 * released, is one statement gated on the row leaving `processing`, so it
 * happens at most once. The payouts package, today's only debit, builds the
 * rows and calls these.
 */

/** A debit to open: its row's columns (the hold is amount + fees). */
export interface DebitDraft {
  workspaceId: number;
  currency: string;
  provider: string;
  amount: Decimal;
  fees: Decimal;
  /** The ledger-level key (the body `idempotency_key`); the generated reference when absent. */
  idempotencyKey?: string;
  category: string;
  channel: string;
  title: string;
  description: string;
  counterpartyName: string | null;
  counterpartyAccount: string;
  counterpartyBank: string | null;
  bankCode: string | null;
  beneficiaryId: number | null;
  metadata: Record<string, Prisma.InputJsonValue>;
  /** The request's Idempotency-Key and request hash, recorded on the row (unique per workspace). */
  request?: RequestKey;
}

export interface OpenedDebit {
  transaction: LedgerTransaction;
  /** False when a key matched an existing debit, which is returned instead. */
  created: boolean;
}

const exceedsBalance = (available: Decimal, currency: string) =>
  new AppError('invalid_request', `Exceeds balance: ${formatAmount(available)} ${currency}`, {
    details: { field: 'amount', available: formatAmount(available), currency },
  });

/**
 * The `Idempotency-Key` header a payout was asked for with, and the hash of
 * that request. The row keeps both under a unique index (of the debits that
 * are not `failed`), so whatever happens to the idempotency layer's own
 * record, one key never opens two payouts that can move money: a retry with
 * the same request finds the first, and one with another body is a conflict.
 * After a definite failure the key is free again.
 */
export interface RequestKey {
  key: string;
  requestHash: string;
}

const requestKeyConflict = () => new AppError('idempotency_conflict', 'This Idempotency-Key was reused with a different request body (or method or path)');

/** The columns a debit's `processing` row is inserted with, by OPEN_HELD_DEBIT and OPEN_HELD_DEBITS alike. */
const DEBIT_ROW_COLUMNS = insertColumns<LedgerTransaction>()(
  'workspaceId',
  'walletId',
  'type',
  'direction',
  'category',
  'channel',
  'status',
  'reference',
  'idempotencyKey',
  'currency',
  'amount',
  'fees',
  'title',
  'description',
  'provider',
  'counterpartyName',
  'counterpartyAccount',
  'counterpartyBank',
  'counterpartyEmail',
  'bankCode',
  'beneficiaryId',
  'metadata',
  'requestKey',
  'requestHash',
  'createdAt',
  'updatedAt',
);

/** What opening one debit writes, by OPEN_HELD_DEBIT and (one row of the batch each) OPEN_HELD_DEBITS. */
const DEBIT_FIELDS = {
  workspaceId: sqlParam.int,
  currency: sqlParam.text,
  idempotencyKey: sqlParam.text,
  /** amount + fees: what the hold takes. */
  total: sqlParam.decimal,
  category: sqlParam.text,
  channel: sqlParam.text,
  reference: sqlParam.text,
  amount: sqlParam.decimal,
  fees: sqlParam.decimal,
  title: sqlParam.text,
  description: sqlParam.text,
  provider: sqlParam.text,
  counterpartyName: sqlParam.text.orNull,
  counterpartyAccount: sqlParam.text,
  counterpartyBank: sqlParam.text.orNull,
  bankCode: sqlParam.text.orNull,
  beneficiaryId: sqlParam.int.orNull,
  metadata: sqlParam.json,
  requestKey: sqlParam.text.orNull,
  requestHash: sqlParam.text.orNull,
};
type DebitFields = InputOf<typeof DEBIT_FIELDS>;

/**
 * The id of an earlier debit of the workspace that this one repeats: the same
 * ledger key (debits only: credits' keys are the system's, apart from the
 * clients'), whatever its status, or the same Idempotency-Key header on a
 * debit that is not `failed`: a payout the rail definitely did not pay frees
 * its header key, so a retry runs as a new attempt (only successful
 * responses are stored, so failed requests can be retried); the
 * partial unique index on the header key covers the same rows, so two such
 * retries racing still open one. Takes the SQL of the three
 * values. Each key is its own lookup on its own unique index, led by the
 * workspace: written as one OR, Postgres scanned both indexes without the
 * workspace (a bitmap OR of the keys alone), reading more of them the more
 * payouts every workspace had made.
 */
const earlierDebitId = (workspaceId: string, ledgerKey: string, headerKey: string) => `
  SELECT "id" FROM (
    SELECT "id" FROM "LedgerTransaction" WHERE "workspaceId" = ${workspaceId} AND "type" = 'debit' AND "idempotencyKey" = ${ledgerKey}
    UNION ALL
    SELECT "id" FROM "LedgerTransaction" WHERE "workspaceId" = ${workspaceId} AND "requestKey" = ${headerKey} AND "status" <> 'failed'
  ) AS earlier
  ORDER BY "id" LIMIT 1`;

/**
 * The whole open as one statement, so it commits on its own (autocommit) the
 * instant the hold is placed: the wallet's row lock, which every payout of the
 * workspace waits for, is never held across a round trip to this process.
 * The pre-flight reads (workspace, currency, idempotency key) gate the hold;
 * the hold gates the insert of the row, which the hold's entry names. A
 * racing duplicate key fails the insert (23505), undoing the hold. The row's
 * columns are all null when it was not created (the left join). Beside the
 * batched OPEN_HELD_DEBITS, the one write with a one-row form too, for the
 * answers a batch leaves out (CONTRIBUTING.md, Hot SQL, says why).
 */
const OPEN_HELD_DEBIT = defineStatement({
  name: 'cowrie-open-held-debit',
  params: { ...DEBIT_FIELDS, now: sqlParam.timestamp },
  text: (p) => `
  WITH wallet AS (
    SELECT "id", "balance" - "held" AS "available" FROM "Wallet" WHERE "workspaceId" = ${p.workspaceId} AND "currency" = ${p.currency}
  ), duplicate AS (${earlierDebitId(p.workspaceId, p.idempotencyKey, p.requestKey)}
  ), held AS (
    UPDATE "Wallet" w SET "held" = w."held" + ${p.total}::numeric, "updatedAt" = ${p.now}
    FROM wallet
    WHERE w."id" = wallet."id" AND wallet."available" >= ${p.total}::numeric AND NOT EXISTS (SELECT 1 FROM duplicate)
      AND w."balance" - w."held" >= ${p.total}::numeric
    RETURNING w."id"
  ), created AS (
    INSERT INTO "LedgerTransaction" (${DEBIT_ROW_COLUMNS})
    SELECT ${p.workspaceId}, held."id", 'debit', 'out', ${p.category}, ${p.channel}, 'processing', ${p.reference}, ${p.idempotencyKey}, ${p.currency},
      ${p.amount}, ${p.fees}, ${p.title}, ${p.description}, ${p.provider}, ${p.counterpartyName}, ${p.counterpartyAccount}, ${p.counterpartyBank}, NULL,
      ${p.bankCode}, ${p.beneficiaryId}, ${p.metadata}, ${p.requestKey}, ${p.requestHash}, ${p.now}, ${p.now}
    FROM held
    RETURNING ${columnList(ledgerTransactionColumns)}
  ), entry AS (
    INSERT INTO "LedgerEntry" (${LEDGER_ENTRY_COLUMNS})
    SELECT "walletId", "id", 'hold', 0, ${p.total}::numeric, ${p.now} FROM created
  )
  SELECT (SELECT "id" FROM wallet) AS "preflightWalletId", (SELECT "available" FROM wallet) AS "preflightAvailable",
    (SELECT "id" FROM duplicate) AS "duplicateId", ${columnList(ledgerTransactionColumns, 'created')}
  FROM (SELECT 1) AS one LEFT JOIN created ON true`,
  result: {
    preflightWalletId: sqlColumn.int.orNull,
    preflightAvailable: sqlColumn.numericText.orNull,
    duplicateId: sqlColumn.int.orNull,
    ...orNullColumns(ledgerTransactionColumns),
  },
});

const EARLIER_DEBIT = defineStatement({
  name: 'cowrie-earlier-debit',
  params: { workspaceId: sqlParam.int, ledgerKey: sqlParam.text, headerKey: sqlParam.text.orNull },
  text: (p) =>
    `SELECT ${columnList(ledgerTransactionColumns)} FROM "LedgerTransaction" WHERE "id" = (${earlierDebitId(p.workspaceId, p.ledgerKey, p.headerKey)})`,
  result: ledgerTransactionColumns,
});

const WALLET_AVAILABLE = defineStatement({
  name: 'cowrie-wallet-available',
  params: { walletId: sqlParam.int },
  text: (p) => `SELECT "balance" - "held" AS "available" FROM "Wallet" WHERE "id" = ${p.walletId}`,
  result: { available: sqlColumn.numericText },
});

/**
 * Frees a header key its debit has held past IDEMPOTENCY_RETENTION_MS: after
 * 24 hours a request with the key runs fresh. The row keeps its
 * request hash; only the key goes, so the unique index lets a new payout take it.
 */
const RELEASE_EXPIRED_REQUEST_KEY = defineStatement({
  name: 'cowrie-release-expired-request-key',
  params: { id: sqlParam.int, requestKey: sqlParam.text, openedBefore: sqlParam.timestamp },
  text: (p) =>
    `UPDATE "LedgerTransaction" SET "requestKey" = NULL WHERE "id" = ${p.id} AND "requestKey" = ${p.requestKey} AND "createdAt" <= ${p.openedBefore}`,
  result: {},
});

/**
 * Whether a debit still holds the Idempotency-Key header it was opened with,
 * at `now`: opened less than IDEMPOTENCY_RETENTION_MS before, or still
 * processing whatever its age (while it can still move money, a retry answers
 * it). Past that, the key alone answers nothing: a request with it runs fresh
 * (findEarlierDebit frees it). The one rule for the open and for whoever asks
 * before it whether a request would be answered by an earlier debit
 * (findAnsweringDebit).
 */
export function holdsRequestKey(debit: Pick<LedgerTransaction, 'createdAt' | 'status'>, now: Date): boolean {
  return debit.status === 'processing' || debit.createdAt.getTime() > now.getTime() - IDEMPOTENCY_RETENTION_MS;
}

/**
 * The earlier debit a repeated request is answered with (earlierDebitId), or
 * null. The same header key with another request's hash is a conflict. A
 * debit found by the header key alone that no longer holds it
 * (holdsRequestKey) answers nothing: its key is freed (`released`), and the
 * open runs again as a fresh request.
 */
async function findEarlierDebit(sql: SqlQueryable, request: OpenRequest, now: Date): Promise<OpenedDebit | 'released' | null> {
  const { draft } = request;
  const { rows } = await EARLIER_DEBIT.run(sql, { workspaceId: draft.workspaceId, ledgerKey: request.idempotencyKey, headerKey: draft.request?.key ?? null });
  const transaction = rows[0];
  if (!transaction) return null;
  if (draft.request && transaction.requestKey === draft.request.key) {
    if (!holdsRequestKey(transaction, now) && transaction.idempotencyKey !== request.idempotencyKey) {
      const openedBefore = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
      await RELEASE_EXPIRED_REQUEST_KEY.run(sql, { id: transaction.id, requestKey: draft.request.key, openedBefore });
      return 'released';
    }
    if (transaction.requestHash !== draft.request.requestHash) throw requestKeyConflict();
  }
  return { transaction, created: false };
}

/**
 * The earlier debit that opening a payout with these keys would answer (or,
 * for its header key with another request's hash, refuse as a conflict)
 * instead of opening a new one, read without changing anything: the rule of
 * findEarlierDebit. A debit with the ledger key (`idempotencyKey`, the body
 * `idempotency_key`) whatever its status and age; one with the header key
 * that is not `failed` and still holds it (holdsRequestKey). Null: the open
 * would make a new debit, which may move money.
 */
export async function findAnsweringDebit(
  db: DbOrTx,
  input: { workspaceId: number; idempotencyKey?: string; request: RequestKey; now?: Date },
): Promise<LedgerTransaction | null> {
  const { workspaceId } = input;
  const now = input.now ?? new Date();
  // Two lookups, each on its unique index led by the workspace (see earlierDebitId).
  const byLedgerKey =
    input.idempotencyKey === undefined
      ? null
      : await db.ledgerTransaction.findFirst({ where: { workspaceId, type: 'debit', idempotencyKey: input.idempotencyKey } });
  const byHeaderKey = await db.ledgerTransaction.findFirst({ where: { workspaceId, requestKey: input.request.key, status: { not: 'failed' } } });
  const answering = [byLedgerKey, byHeaderKey && holdsRequestKey(byHeaderKey, now) ? byHeaderKey : null].filter((row) => row !== null);
  // The first one, as earlierDebitId orders them.
  return answering.sort((a, b) => a.id - b.id)[0] ?? null;
}

/** What a debit's row is opened with (DEBIT_FIELDS). */
function debitFields({ draft, reference, idempotencyKey, total }: OpenRequest): DebitFields {
  return {
    workspaceId: draft.workspaceId,
    currency: draft.currency,
    idempotencyKey,
    total,
    category: draft.category,
    channel: draft.channel,
    reference,
    amount: draft.amount,
    fees: draft.fees,
    title: draft.title,
    description: draft.description,
    provider: draft.provider,
    counterpartyName: draft.counterpartyName,
    counterpartyAccount: draft.counterpartyAccount,
    counterpartyBank: draft.counterpartyBank,
    bankCode: draft.bankCode,
    beneficiaryId: draft.beneficiaryId,
    metadata: { provider: draft.provider, raw: {}, ...draft.metadata },
    requestKey: draft.request?.key ?? null,
    requestHash: draft.request?.requestHash ?? null,
  };
}

/**
 * Pre-flight checks 2 to 4 and the `processing` row with its hold, for one
 * payout in one statement.
 * The hold's conditional update is the overdraft guard under concurrency; the
 * unique (workspace, type, idempotency key) and (workspace, request key)
 * indexes make a racing duplicate find the first. Every answer the API
 * names (404 wallet, `Exceeds balance`, the first row of a repeated key) comes
 * from here. A repeated Idempotency-Key header is answered with its payout
 * before the balance is looked at: the request was done, not asked again.
 */
async function openOneHeldDebit(sql: SqlPool, request: OpenRequest): Promise<OpenedDebit> {
  const { draft, total } = request;
  const input = { ...debitFields(request), now: new Date() };
  for (let attempt = 1; ; attempt++) {
    let opened: StatementRow<typeof OPEN_HELD_DEBIT>;
    try {
      opened = (await OPEN_HELD_DEBIT.run(sql, input)).rows[0]!;
    } catch (err) {
      if (isUniqueViolation(err)) {
        const earlier = await findEarlierDebit(sql, request, input.now);
        if (earlier === 'released') continue;
        if (earlier) return earlier;
      }
      throw err;
    }
    if (opened.preflightWalletId === null) {
      throw new AppError('not_found', `This workspace has no ${draft.currency} wallet`, { details: { currency: draft.currency } });
    }
    if (opened.id !== null) {
      const { preflightWalletId: _w, preflightAvailable: _a, duplicateId: _d, ...row } = opened;
      // The row was created: none of its columns is the left join's null.
      return { transaction: row as LedgerTransaction, created: true };
    }
    const earlier = opened.duplicateId === null ? null : await findEarlierDebit(sql, request, input.now);
    if (earlier === 'released') continue;
    if (earlier && draft.request && earlier.transaction.requestKey === draft.request.key) return earlier;
    const available = new Decimal(opened.preflightAvailable!);
    if (available.lessThan(total)) throw exceedsBalance(available, draft.currency);
    if (earlier) return earlier;
    // Concurrent holds took the money while this statement waited for the
    // wallet's lock. Answer with what is left, or try again if some came back.
    const { rows } = await WALLET_AVAILABLE.run(sql, { walletId: opened.preflightWalletId });
    const now = new Decimal(rows[0]!.available);
    if (now.lessThan(total) || attempt === 3) throw exceedsBalance(Decimal.min(now, available), draft.currency);
  }
}

/**
 * The plain case of many payouts opened at once, as one statement: every
 * wallet the batch draws on is locked first, in id order, and read as it is
 * under the lock; per wallet, the payouts (in the order they came) whose
 * running total still fits what is available are held together, one update of
 * the wallet, one `processing` row and `hold` entry each. A payout whose key
 * is already taken, whose wallet is missing, or that does not fit is left out
 * (no row): openHeldDebit sends it down the one-debit path, which gives it
 * the answer a payout opened alone would get. A duplicate key racing in from elsewhere fails
 * the whole statement (23505), and then every payout of the batch takes that
 * path too, as it does on any other error. The rule of the one-debit path holds: never more held than the
 * balance, checked again by the update's guard under the lock.
 */
const OPEN_HELD_DEBITS = defineStatement({
  name: 'cowrie-open-held-debits',
  params: { debits: sqlColumns(DEBIT_FIELDS), now: sqlParam.timestamp },
  text: (p) => `
  WITH input AS (
    SELECT * FROM ${p.debits.unnest} WITH ORDINALITY AS i(${p.debits.columns}, "position")
  ), locked AS MATERIALIZED (
    SELECT w."id", w."workspaceId", w."currency", w."balance" - w."held" AS "available" FROM "Wallet" w
    WHERE (w."workspaceId", w."currency") IN (SELECT "workspaceId", "currency" FROM input)
    ORDER BY w."id" FOR UPDATE
  ), eligible AS (
    SELECT i.*, l."id" AS "walletId", l."available", sum(i."total") OVER (PARTITION BY l."id" ORDER BY i."position") AS "runningTotal"
    FROM input i JOIN locked l ON l."workspaceId" = i."workspaceId" AND l."currency" = i."currency"
    -- Two lookups, each on its unique index led by the workspace (see earlierDebitId).
    WHERE NOT EXISTS (
      SELECT 1 FROM "LedgerTransaction" t WHERE t."workspaceId" = i."workspaceId" AND t."type" = 'debit' AND t."idempotencyKey" = i."idempotencyKey"
    ) AND NOT EXISTS (
      SELECT 1 FROM "LedgerTransaction" t WHERE t."workspaceId" = i."workspaceId" AND t."requestKey" = i."requestKey" AND t."status" <> 'failed'
    )
  ), accepted AS MATERIALIZED (
    SELECT * FROM eligible WHERE "runningTotal" <= "available"
  ), held AS (
    UPDATE "Wallet" w SET "held" = w."held" + a."total", "updatedAt" = ${p.now}
    FROM (SELECT "walletId", sum("total") AS "total" FROM accepted GROUP BY "walletId") a
    WHERE w."id" = a."walletId" AND w."balance" - w."held" >= a."total"
    RETURNING w."id"
  ), created AS (
    INSERT INTO "LedgerTransaction" (${DEBIT_ROW_COLUMNS})
    SELECT a."workspaceId", a."walletId", 'debit', 'out', a."category", a."channel", 'processing', a."reference", a."idempotencyKey", a."currency",
      a."amount", a."fees", a."title", a."description", a."provider", a."counterpartyName", a."counterpartyAccount", a."counterpartyBank", NULL,
      a."bankCode", a."beneficiaryId", a."metadata", a."requestKey", a."requestHash", ${p.now}, ${p.now}
    FROM accepted a JOIN held h ON h."id" = a."walletId"
    ORDER BY a."position"
    RETURNING ${columnList(ledgerTransactionColumns)}
  ), entry AS (
    INSERT INTO "LedgerEntry" (${LEDGER_ENTRY_COLUMNS})
    SELECT "walletId", "id", 'hold', 0, "amount" + "fees", ${p.now} FROM created
  )
  SELECT ${columnList(ledgerTransactionColumns)} FROM created`,
  result: ledgerTransactionColumns,
});

interface OpenRequest {
  draft: DebitDraft;
  reference: string;
  idempotencyKey: string;
  total: Decimal;
}

/** OPEN_HELD_DEBITS for one batch: the created row of each payout it opened, null for the ones it left out. */
async function openBatch(sql: SqlQueryable, requests: readonly OpenRequest[]): Promise<Array<OpenedDebit | null>> {
  // A key (ledger or header) at most once per statement (the index would
  // refuse the second): the later ones take the one-debit path and find the first.
  const keys = new Set<string>();
  const batch = requests.filter((r) => {
    const ledgerKey = `${r.draft.workspaceId}:ledger:${r.idempotencyKey}`;
    const headerKey = r.draft.request ? `${r.draft.workspaceId}:header:${r.draft.request.key}` : null;
    if (keys.has(ledgerKey) || (headerKey && keys.has(headerKey))) return false;
    keys.add(ledgerKey);
    if (headerKey) keys.add(headerKey);
    return true;
  });
  let rows: LedgerTransaction[];
  try {
    ({ rows } = await OPEN_HELD_DEBITS.run(sql, { debits: batch.map(debitFields), now: new Date() }));
  } catch (err) {
    // Refused (a racing duplicate key, 23505, or a value one payout brought):
    // nothing was written, so each takes the one-debit path and a fault stays
    // its own. A lost connection is not retried: the batch may have committed.
    if (!isSqlStatementRefused(err)) throw err;
    return requests.map(() => null);
  }
  const created = new Map(rows.map((row) => [row.reference, row]));
  return requests.map((r) => {
    const transaction = created.get(r.reference);
    return transaction ? { transaction, created: true } : null;
  });
}

// One batcher per pool, one batch at a time: the opens of a burst share the
// wallet's row lock and its commit instead of queueing for them one by one.
const openBatcher = batchPerTurnFor(openBatch, { oneAtATime: true });

/**
 * Pre-flight checks 2 to 4 and the `processing` row with its hold: batched
 * with the other opens of this process (OPEN_HELD_DEBITS), and through the
 * one-debit path for whatever the batch left out.
 */
export async function openHeldDebit(sql: SqlPool, draft: DebitDraft): Promise<OpenedDebit> {
  const reference = newReference('snd');
  const request = { draft, reference, idempotencyKey: draft.idempotencyKey ?? reference, total: draft.amount.plus(draft.fees) };
  return (await openBatcher(sql).load(request)) ?? openOneHeldDebit(sql, request);
}

/** How a `processing` debit ends: its status, what the row keeps of the rail's answer, and the event that says so. */
export interface DebitClose {
  transactionId: number;
  status: 'completed' | 'failed';
  /** The row's new metadata (the rail's answer under `raw`). */
  metadata: Record<string, unknown>;
  providerReference: string | null;
  /** Recorded as the counterparty's name when the row had none. */
  accountName: string | null;
  /**
   * The rail whose answer this close is (the row's `provider` when it was
   * read): the close changes nothing once the debit has moved to another rail,
   * so a late answer from a rail it left never settles or releases it.
   */
  provider: string;
  /** The outbox event committed with the close (`transfer.completed`, `transfer.failed`). */
  event: EmittedEvent<'transfer.completed' | 'transfer.failed'>;
  /** The row's `updatedAt`, as the caller rendered it into the event's payload. */
  at: Date;
}

/**
 * Debits' ends as one statement, committed on its own, for every close of the
 * same turn of the event loop. Per debit: the row leaves `processing` while
 * it is still on the rail that answered (the gate: a racing close or move
 * waits for the row's lock, then finds it final or on another rail and
 * changes nothing), its outbox event, and its hold's close: a `settle` entry
 * (balance and pending drop) when completed, a `release` entry (available
 * rises again) when failed. The wallets are locked last, in id order, and
 * updated once each with the batch's sum; their row locks are released by the
 * commit that ends the statement: a hot wallet is locked once per batch, never
 * across a round trip.
 */
const CLOSE_HELD_DEBITS = defineStatement({
  name: 'cowrie-close-held-debits',
  params: {
    closes: sqlColumns({
      id: sqlParam.int,
      status: sqlParam.text,
      metadata: sqlParam.json,
      providerReference: sqlParam.text.orNull,
      accountName: sqlParam.text.orNull,
      provider: sqlParam.text,
      event: sqlParam.text,
      payload: sqlParam.json,
      at: sqlParam.timestamp,
    }),
    now: sqlParam.timestamp,
  },
  text: (p) => `
  WITH input AS (
    SELECT * FROM ${p.closes.unnest} AS i(${p.closes.columns})
  ), finished AS (
    UPDATE "LedgerTransaction" t SET "status" = i."status", "metadata" = i."metadata", "providerReference" = COALESCE(i."providerReference", t."providerReference"),
      "counterpartyName" = COALESCE(t."counterpartyName", i."accountName"), "updatedAt" = i."at"
    FROM input i
    WHERE t."id" = i."id" AND t."status" = 'processing' AND t."type" = 'debit' AND t."provider" = i."provider"
    RETURNING t."id", t."workspaceId"
  ), event AS (
    INSERT INTO "OutboxEvent" (${OUTBOX_EVENT_COLUMNS})
    SELECT f."workspaceId", i."event", i."payload", ${p.now} FROM finished f JOIN input i ON i."id" = f."id"
  ), closing AS (
    INSERT INTO "LedgerEntry" (${LEDGER_ENTRY_COLUMNS})
    SELECT h."walletId", h."transactionId", CASE WHEN i."status" = 'completed' THEN 'settle' ELSE 'release' END,
      CASE WHEN i."status" = 'completed' THEN -h."heldDelta" ELSE 0 END, -h."heldDelta", ${p.now}
    FROM finished f JOIN input i ON i."id" = f."id" JOIN "LedgerEntry" h ON h."transactionId" = f."id" AND h."kind" = 'hold'
    RETURNING "walletId", "balanceDelta", "heldDelta"
  ), locked AS (
    -- In id order, so two batches touching the same wallets cannot deadlock.
    SELECT "id" FROM "Wallet" WHERE "id" IN (SELECT "walletId" FROM closing) ORDER BY "id" FOR UPDATE
  ), wallet AS (
    UPDATE "Wallet" w SET "balance" = w."balance" + d."balanceDelta", "held" = w."held" + d."heldDelta", "updatedAt" = ${p.now}
    FROM (SELECT "walletId", sum("balanceDelta") AS "balanceDelta", sum("heldDelta") AS "heldDelta" FROM closing GROUP BY "walletId") d
    JOIN locked l ON l."id" = d."walletId"
    WHERE w."id" = d."walletId"
  )
  SELECT "id" FROM finished`,
  result: { id: ledgerTransactionColumns.id },
});

/** CLOSE_HELD_DEBITS for closes of distinct debits: whether each one won. */
async function closeDistinct(sql: SqlQueryable, closes: readonly DebitClose[]): Promise<boolean[]> {
  const { rows } = await CLOSE_HELD_DEBITS.run(sql, {
    closes: closes.map((c) => ({
      id: c.transactionId,
      status: c.status,
      metadata: c.metadata,
      providerReference: c.providerReference || null,
      accountName: c.accountName || null,
      provider: c.provider,
      event: c.event.name,
      payload: c.event.payload,
      at: c.at,
    })),
    now: new Date(),
  });
  const won = new Set(rows.map((r) => r.id));
  return closes.map((c) => won.has(c.transactionId));
}

// One debit at most once per statement: a second close of the same row in
// the batch runs after it, as it would a moment later (it loses to a first
// that won, and may win when the first came from a rail the debit has left).
const closeTogether = (sql: SqlQueryable, closes: readonly DebitClose[]) =>
  firstsThenRepeats(
    closes,
    (c) => c.transactionId,
    (distinct) => closeDistinct(sql, distinct),
  );

// One batcher per pool, one batch at a time: the closes a process makes while
// the last batch commits go out together (they share the wallets' row locks).
// If Postgres refuses a batch (a value one rail answer brought, say), nothing
// was written and each close runs on its own, so that debit fails alone; a
// lost connection fails the batch (it may have committed, and the callers'
// retries find their rows final).
const closeBatcher = batchPerTurnFor(closeTogether, { oneAtATime: true, oneByOneWhenRefused: true });

/**
 * Moves a `processing` debit to its final state and settles or releases its
 * hold (CLOSE_HELD_DEBITS), batched with the other closes of this turn;
 * resolves once that statement has committed. Only the first caller wins:
 * false for a row that was final already, or that is no longer on the rail
 * whose answer the close is (`provider`).
 */
export function closeHeldDebit(sql: SqlQueryable, close: DebitClose): Promise<boolean> {
  return closeBatcher(sql).load(close);
}
