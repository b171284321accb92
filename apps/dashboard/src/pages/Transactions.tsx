import { Link } from 'wouter';
import { numberIn, useAddress, useAddressField } from '../address';
import type { Schemas } from '../api';
import { formatAmount } from '../money';
import { useApiQuery, usePagedList } from '../queries';
import {
  Amount,
  Button,
  DetailList,
  DownloadCsv,
  ErrorNote,
  FilterInput,
  FilterSelect,
  oneOf,
  PageHeader,
  Pager,
  QueryResult,
  RowsSelect,
  Table,
  Time,
  dayAfter,
  fromLocalInput,
} from '../ui';

type Transaction = Schemas['Transaction'];
type Status = Schemas['TransactionStatus'];

const STATUSES: Status[] = ['processing', 'completed', 'failed', 'reversed'];
const TYPES = ['debit', 'credit'] as const;
const PAGE_SIZES = [10, 25, 50, 100];

/** Every field of a transaction, as the API gives it. */
function TransactionDetail({ t }: { t: Transaction }) {
  const fields: [string, string | number | null][] = [
    ['Reference', t.reference],
    ['Type', `${t.type} (${t.direction})`],
    ['Category', t.category],
    ['Channel', t.channel],
    ['Amount', formatAmount(t.amount, t.currency, 'exact')],
    ['Fees', formatAmount(t.fees, t.currency, 'exact')],
    ['Description', t.description],
    ['Counterparty', t.counterpartyName],
    ['Account', t.counterpartyAccount],
    ['Bank', t.counterpartyBank],
    ['Email', t.counterpartyEmail],
    ['Rail', t.provider],
    ["Rail's reference", t.providerReference],
    ['Idempotency key', t.idempotencyKey],
    ['Reversal of', reversalOf(t)],
    ['Reversed by', reversedBy(t)],
    ['Created', t.createdAt],
    ['Updated', t.updatedAt],
  ];
  return <DetailList fields={fields} />;
}

/** The payout a reversal credit gives back (`metadata.reversal_of`), or null. */
const reversalOf = (t: Transaction) => (typeof t.metadata.reversal_of === 'string' ? t.metadata.reversal_of : null);
/** The reversal credit of a reversed payout (`metadata.reversed_by`), or null. */
const reversedBy = (t: Transaction) => (typeof t.metadata.reversed_by === 'string' ? t.metadata.reversed_by : null);

/** A reversal and its payout name each other: a link to the other one, found by the ledger's search. */
function ReversalLink({ t }: { t: Transaction }) {
  const other = reversalOf(t) ?? reversedBy(t);
  if (!other) return null;
  return (
    <div className="small">
      {reversalOf(t) ? 'Gives back ' : 'Reversed: the money came back as '}
      <Link href={`/transactions?search=${encodeURIComponent(other)}`} className="mono">
        {other}
      </Link>
    </div>
  );
}

/** The events a transaction produced (transfer.*, collection.successful) and each one's webhook deliveries, read when its detail opens. */
function TransactionEvents({ reference }: { reference: string }) {
  const detail = useApiQuery('/transactions/{reference}', { params: { path: { reference } } });
  const attempts = detail.data?.attempts ?? [];
  return (
    <div className="events">
      {attempts.length > 0 && (
        <>
          <h4>Rails</h4>
          <ul className="event-log">
            {attempts.map((a) => (
              <li key={a.rail}>
                <span className="mono">{a.rail}</span> <Time value={a.created_at} /> <span className="mono small">{a.reference}</span>
                <div className="small muted">
                  {a.outcome}
                  {a.reason ? `: ${a.reason}` : ''}
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
      <h4>Events</h4>
      <QueryResult
        query={{ ...detail, data: detail.data?.events }}
        loading="Loading its events…"
        failed="Its events could not be loaded"
        empty="No event yet (a payout's comes when the rail settles it)."
      >
        {(events) => (
          <ul className="event-log">
            {events.map((e) => (
              <li key={e.id}>
                <span className="mono">{e.event}</span> <Time value={e.created_at} />
                <div className="small muted">
                  {e.deliveries.length === 0
                    ? 'no webhook delivery (no endpoint takes it)'
                    : e.deliveries
                        .map(
                          (d) =>
                            `delivery #${d.id} (dispatch ${d.dispatch}) to endpoint #${d.endpoint_id}: ${
                              d.ok === null ? 'pending' : d.ok ? 'delivered' : 'failed'
                            }${d.status_code === null ? '' : `, HTTP ${d.status_code}`}`,
                        )
                        .join('; ')}
                </div>
              </li>
            ))}
          </ul>
        )}
      </QueryResult>
    </div>
  );
}

/**
 * One transaction as a table row: when, what, status and the amount as the API
 * gives it; `full` adds the counterparty and every field behind a disclosure
 * (`open` opens it; `onToggle` says the reader opened or closed it).
 */
export function TransactionRow({
  t,
  full = false,
  open = false,
  onToggle,
}: {
  t: Transaction;
  full?: boolean;
  open?: boolean;
  onToggle?: (open: boolean) => void;
}) {
  return (
    <tr>
      <td data-label="When">
        <Time value={t.createdAt} />
      </td>
      <td data-label="What">
        <div>
          {full ? (
            <details
              open={open}
              onToggle={(e) => {
                if (e.currentTarget.open !== open) onToggle?.(e.currentTarget.open);
              }}
            >
              <summary>
                {t.title || t.category} <span className="visually-hidden">: every field</span>
              </summary>
              <TransactionDetail t={t} />
              {open && <TransactionEvents reference={t.reference} />}
            </details>
          ) : (
            t.title || t.category
          )}
          <div className="muted mono small url">{t.reference}</div>
          <ReversalLink t={t} />
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
 * The ledger, newest first, filtered by status, type, currency, dates and a
 * search, a page at a time (the API's cursor; the cursors of the pages before
 * are kept to go back), and the filtered set as a CSV download.
 */
export function Transactions() {
  // The filters, the page and the open transaction are the address's (a link opens the same view).
  const address = useAddress();
  const status = oneOf(address.get('status'), STATUSES);
  const type = oneOf(address.get('type'), TYPES);
  const currency = address.get('currency');
  const from = address.get('from');
  const until = address.get('until');
  const limit = numberIn(address.get('limit'), PAGE_SIZES, 25);
  // A link to one transaction (a reversal's payout, say) opens the ledger searched for its reference.
  const search = address.get('search');
  const [searchText, setSearchText] = useAddressField(search);
  const fromIso = fromLocalInput(from);
  const toIso = dayAfter(until);
  const filters = {
    ...(status && { status }),
    ...(type && { type }),
    ...(currency && { currency }),
    ...(fromIso && { from: fromIso }),
    ...(toIso && { to: toIso }),
    ...(search && { search }),
  };
  const { page, pager, rows } = usePagedList('/transactions', { limit, ...filters });
  const balances = useApiQuery('/balances');
  const filtered = status || type || currency || from || until || search;
  return (
    <>
      <PageHeader title="Transactions">
        <p className="lead">Every ledger transaction of this workspace, newest first.</p>
      </PageHeader>
      <form
        className="filters card"
        role="group"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          address.set({ search: searchText.trim() });
        }}
      >
        <FilterSelect id="tx-status" label="Status" value={status} onChange={(v) => address.set({ status: v })} choices={STATUSES} />
        <FilterSelect
          id="tx-type"
          label="Type"
          value={type}
          onChange={(v) => address.set({ type: v })}
          choices={[
            { value: 'debit', label: 'debit (money out)' },
            { value: 'credit', label: 'credit (money in)' },
          ]}
        />
        <FilterSelect
          id="tx-currency"
          label="Currency"
          value={currency}
          onChange={(v) => address.set({ currency: v })}
          choices={(balances.data ?? []).map((b) => b.currency)}
        />
        <FilterInput id="tx-from" label="From" type="date" value={from} onChange={(v) => address.set({ from: v })} />
        <FilterInput id="tx-until" label="Until" type="date" value={until} onChange={(v) => address.set({ until: v })} />
        <FilterInput
          id="tx-search"
          label="Search"
          type="search"
          maxLength={100}
          value={searchText}
          onChange={setSearchText}
          placeholder="Reference, name or account"
        />
        <Button type="submit">Search</Button>
        <RowsSelect id="tx-limit" value={limit} onChange={(v) => address.set({ limit: v })} sizes={PAGE_SIZES} />
      </form>
      <DownloadCsv
        path="/transactions/export"
        query={filters}
        scope={filtered ? 'Every transaction these filters keep, not only this page.' : 'Every transaction, not only this page.'}
      />
      <QueryResult
        query={rows}
        loading="Loading transactions…"
        failed="Transactions could not be loaded"
        empty={filtered ? 'No transactions match these filters.' : 'No transactions yet.'}
      >
        {(items) => (
          <Table columns={['When', 'What', 'Counterparty', 'Status', 'Amount']} caption="Transactions" stale={page.isPlaceholderData}>
            {items.map((t) => (
              <TransactionRow
                key={t.id}
                t={t}
                full
                open={address.get('open') === t.reference}
                onToggle={(opened) => address.set({ open: opened ? t.reference : null }, { paging: true })}
              />
            ))}
          </Table>
        )}
      </QueryResult>
      <Pager {...pager} />
      <ErrorNote error={balances.error} prefix="Currencies could not be loaded" />
    </>
  );
}
