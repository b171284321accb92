import { useState } from 'react';
import { useAddress } from '../address';
import type { Schemas } from '../api';
import { useApiQuery, usePagedList } from '../queries';
import { Amount, Button, FilterSelect, oneOf, PageHeader, Pager, QueryResult, Table, Time, WhenCell } from '../ui';

/** Whose transfers the third table shows: one collection's, one reserved account's, or every one. */
type Into = { kind: 'collection' | 'reserved_account'; id: number; label: string } | null;

const COLLECTION_STATUSES = ['pending', 'successful', 'expired'] as const;

function AccountCell({ account }: { account: Schemas['DepositAccount'] }) {
  return (
    <div>
      <span className="mono">{account.account_number}</span>
      <div className="muted small">
        {account.bank} · {account.account_name}
      </div>
    </div>
  );
}

function Collections({ onShow }: { onShow: (into: Into) => void }) {
  // The filter and the page are the address's (a link opens the same view).
  const address = useAddress();
  const status = oneOf(address.get('collection-status'), COLLECTION_STATUSES);
  const { pager, rows, page } = usePagedList('/collections', { limit: 20, ...(status && { status }) }, 'pages-collections');
  return (
    <section aria-labelledby="collections-title">
      <div className="section-head">
        <h2 id="collections-title">One-off collections</h2>
        <FilterSelect
          id="collection-status"
          label="Status"
          value={status}
          onChange={(v) => address.set({ 'collection-status': v })}
          choices={COLLECTION_STATUSES}
        />
      </div>
      <QueryResult
        query={rows}
        loading="Loading collections…"
        failed="Collections could not be loaded"
        empty={status ? `No ${status} collections.` : 'No collections yet. POST /v1/collections opens one for a customer to pay into.'}
      >
        {(items) => (
          <Table columns={['Created', 'Customer', 'Pay into', 'Status', 'Amount', 'Transfers']} caption="Collections" stale={page.isPlaceholderData}>
            {items.map((c) => (
              <tr key={c.id}>
                <WhenCell label="Created" at={c.created_at} reference={c.reference} />
                <td data-label="Customer">{c.customer ? `${c.customer.name}${c.customer.email ? ` (${c.customer.email})` : ''}` : '—'}</td>
                <td data-label="Pay into">
                  <AccountCell account={c.account} />
                </td>
                <td data-label="Status">
                  <div>
                    <span className={`badge badge-${c.status}`}>{c.status}</span>
                    <div className="muted small">
                      {c.paid_at ? (
                        <>
                          paid <Time value={c.paid_at} />
                        </>
                      ) : (
                        <>
                          expires <Time value={c.expires_at} />
                        </>
                      )}
                    </div>
                  </div>
                </td>
                <td className="num" data-label="Amount">
                  <div>
                    <Amount value={c.amount} currency={c.currency} />
                    {c.amount_paid !== null && (
                      <div className="muted small">
                        paid <Amount value={c.amount_paid} currency={c.currency} />
                      </div>
                    )}
                  </div>
                </td>
                <td data-label="Transfers">
                  <Button onClick={() => onShow({ kind: 'collection', id: c.id, label: `collection ${c.reference}` })}>
                    Transfers <span className="visually-hidden">into collection {c.reference}</span>
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
      <Pager {...pager} />
    </section>
  );
}

function ReservedAccounts({ onShow }: { onShow: (into: Into) => void }) {
  const accounts = useApiQuery('/reserved-accounts', { params: { query: { limit: 100 } } });
  return (
    <section aria-labelledby="reserved-title">
      <h2 id="reserved-title">Reserved accounts</h2>
      <QueryResult
        query={accounts}
        loading="Loading reserved accounts…"
        failed="Reserved accounts could not be loaded"
        empty="No reserved accounts yet. POST /v1/reserved-accounts gives a customer an account of their own."
      >
        {(items) => (
          <Table columns={['Created', 'Holder', 'Account', 'Status', 'Transfers']} caption="Reserved accounts">
            {items.map((r) => (
              <tr key={r.id}>
                <WhenCell label="Created" at={r.created_at} reference={r.reference} />
                <td data-label="Holder">
                  <div>
                    {r.customer.name}
                    <div className="muted small">
                      {r.holder}
                      {r.customer.email && ` · ${r.customer.email}`}
                    </div>
                  </div>
                </td>
                <td data-label="Account">
                  <AccountCell account={r.account} />
                </td>
                <td data-label="Status">
                  <span className={`badge badge-${r.status}`}>{r.status}</span>
                </td>
                <td data-label="Transfers">
                  <Button onClick={() => onShow({ kind: 'reserved_account', id: r.id, label: `reserved account ${r.account.account_number}` })}>
                    Transfers <span className="visually-hidden">into {r.account.account_number}</span>
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
    </section>
  );
}

function Payments({ into, onAll }: { into: Into; onAll: () => void }) {
  const query = { limit: 20, ...(into && (into.kind === 'collection' ? { collection_id: into.id } : { reserved_account_id: into.id })) };
  const { pager, rows, page } = usePagedList('/deposit-payments', query, 'pages-payments');
  return (
    <section aria-labelledby="payments-title">
      <div className="section-head">
        <h2 id="payments-title" tabIndex={-1}>
          {into ? `Transfers into ${into.label}` : 'Transfers received'}
        </h2>
        {into && <Button onClick={onAll}>Show every transfer</Button>}
      </div>
      <QueryResult
        query={rows}
        loading="Loading transfers…"
        failed="Transfers could not be loaded"
        empty={into ? 'No transfers into this account yet.' : 'No transfers received yet.'}
      >
        {(items) => (
          <Table columns={['Received', 'From', 'Into', 'Outcome', 'Amount']} caption="Transfers received" stale={page.isPlaceholderData}>
            {items.map((p) => (
              <tr key={p.id}>
                <WhenCell label="Received" at={p.created_at} reference={p.provider_reference} />
                <td data-label="From">
                  <div>
                    {p.sender_name ?? <span className="muted">—</span>}
                    {p.sender_bank && <div className="muted small">{p.sender_bank}</div>}
                    {p.narration && <div className="muted small">{p.narration}</div>}
                  </div>
                </td>
                <td className="mono" data-label="Into">
                  {p.account_number ?? '—'}
                </td>
                <td data-label="Outcome">
                  <div>
                    <span className={`badge badge-${p.status}`}>{p.status}</span>
                    {p.reason && <div className="small error-text">{p.reason}</div>}
                    {p.transaction_reference && <div className="muted mono small url">ledger {p.transaction_reference}</div>}
                  </div>
                </td>
                <td className="num" data-label="Amount">
                  <Amount value={p.amount} currency={p.currency} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
      <Pager {...pager} />
    </section>
  );
}

/** Money in: one-off collections, reserved accounts and the transfers into them (credited, or held back with why). */
export function Deposits() {
  const [into, setInto] = useState<Into>(null);
  const show = (next: Into) => {
    setInto(next);
    // The list the button changed takes the focus.
    requestAnimationFrame(() => document.getElementById('payments-title')?.focus());
  };
  return (
    <>
      <PageHeader title="Deposits">
        <p className="lead">Accounts your customers pay into, and every transfer they made: credited to your balance, or held back with the reason.</p>
      </PageHeader>
      <Collections onShow={show} />
      <ReservedAccounts onShow={show} />
      <Payments into={into} onAll={() => show(null)} />
    </>
  );
}
