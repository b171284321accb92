import { useState } from 'react';
import type { Schemas } from '../api';
import { useApiPage, useApiQuery } from '../queries';
import { Amount, Button, ErrorNote, PageHeader, QueryResult, Table, Time } from '../ui';

type Transaction = Schemas['Transaction'];
type Status = Schemas['TransactionStatus'];

const STATUSES: Status[] = ['processing', 'completed', 'failed', 'reversed'];
const PAGE_SIZES = [10, 25, 50, 100];

/** Every field of a transaction, as the API gives it. */
function TransactionDetail({ t }: { t: Transaction }) {
  const fields: [string, string | number | null][] = [
    ['Reference', t.reference],
    ['Type', `${t.type} (${t.direction})`],
    ['Category', t.category],
    ['Channel', t.channel],
    ['Amount', `${t.amount} ${t.currency}`],
    ['Fees', `${t.fees} ${t.currency}`],
    ['Description', t.description],
    ['Counterparty', t.counterpartyName],
    ['Account', t.counterpartyAccount],
    ['Bank', t.counterpartyBank],
    ['Email', t.counterpartyEmail],
    ['Rail', t.provider],
    ["Rail's reference", t.providerReference],
    ['Idempotency key', t.idempotencyKey],
    ['Created', t.createdAt],
    ['Updated', t.updatedAt],
  ];
  return (
    <dl className="detail">
      {fields.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd className="mono small url">{value === null || value === '' ? '—' : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * One transaction as a table row: when, what, status and the amount as the API
 * gives it; `full` adds the counterparty and every field behind a disclosure.
 */
export function TransactionRow({ t, full = false }: { t: Transaction; full?: boolean }) {
  return (
    <tr>
      <td data-label="When">
        <Time value={t.createdAt} />
      </td>
      <td data-label="What">
        <div>
          {full ? (
            <details>
              <summary>
                {t.title || t.category} <span className="visually-hidden">: every field</span>
              </summary>
              <TransactionDetail t={t} />
            </details>
          ) : (
            t.title || t.category
          )}
          <div className="muted mono small url">{t.reference}</div>
        </div>
      </td>
      {full && (
        <td data-label="Counterparty">
          <div>
            {t.counterpartyName ?? <span className="muted">—</span>}
            {t.counterpartyAccount && <div className="muted small mono">{t.counterpartyAccount}</div>}
          </div>
        </td>
      )}
      <td data-label="Status">
        <span className={`badge badge-${t.status}`}>{t.status}</span>
      </td>
      <td className="num" data-label="Amount">
        <span>
          <span className="muted small">{t.direction} </span>
          <Amount value={t.amount} currency={t.currency} />
        </span>
      </td>
    </tr>
  );
}

/**
 * The ledger, newest first, filtered by status and currency, a page at a time
 * (the API's cursor; the cursors of the pages before are kept to go back).
 * (Next: type, date range and search filters, and the CSV export.)
 */
export function Transactions() {
  const [status, setStatus] = useState<Status | ''>('');
  const [currency, setCurrency] = useState('');
  const [limit, setLimit] = useState(25);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const query = new URLSearchParams({ limit: String(limit), ...(status && { status }), ...(currency && { currency }), ...(cursor && { cursor }) });
  const page = useApiPage<Transaction>(`/transactions?${query}`);
  const balances = useApiQuery<Schemas['Balance'][]>('/balances');
  const filter = (apply: () => void) => {
    apply();
    setCursors([]);
  };
  return (
    <>
      <PageHeader title="Transactions">
        <p className="lead">Every ledger transaction of this workspace, newest first.</p>
      </PageHeader>
      <div className="filters card" role="group" aria-label="Filters">
        <label htmlFor="tx-status">Status</label>
        <select id="tx-status" value={status} onChange={(e) => filter(() => setStatus(e.target.value as Status | ''))}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="tx-currency">Currency</label>
        <select id="tx-currency" value={currency} onChange={(e) => filter(() => setCurrency(e.target.value))}>
          <option value="">Any</option>
          {(balances.data ?? []).map((b) => (
            <option key={b.currency} value={b.currency}>
              {b.currency}
            </option>
          ))}
        </select>
        <label htmlFor="tx-limit">Rows</label>
        <select id="tx-limit" value={limit} onChange={(e) => filter(() => setLimit(Number(e.target.value)))}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <QueryResult
        query={{ isPending: page.isPending, isError: page.isError, error: page.error, data: page.data?.items }}
        loading="Loading transactions…"
        failed="Transactions could not be loaded"
        empty={status || currency ? 'No transactions match these filters.' : 'No transactions yet.'}
      >
        {(items) => (
          <Table columns={['When', 'What', 'Counterparty', 'Status', 'Amount']} caption="Transactions" className={page.isPlaceholderData ? 'stale' : undefined}>
            {items.map((t) => (
              <TransactionRow key={t.id} t={t} full />
            ))}
          </Table>
        )}
      </QueryResult>
      <nav className="pager" aria-label="Pages">
        <Button disabled={cursors.length === 0 || page.isFetching} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <span className="muted small">Page {cursors.length + 1}</span>
        <Button
          disabled={!page.data?.nextCursor}
          busy={page.isFetching && page.isPlaceholderData}
          busyLabel="Loading…"
          onClick={() => {
            const next = page.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Older
        </Button>
      </nav>
      <ErrorNote error={balances.error} prefix="Currencies could not be loaded" />
    </>
  );
}
