import { Link } from 'wouter';
import { useApiQuery } from '../queries';
import { Amount, PageHeader, QueryResult, Table } from '../ui';
import { TransactionRow } from './Transactions';

function Balances() {
  const balances = useApiQuery('/balances');
  return (
    <QueryResult query={balances} loading="Loading balances…" failed="Balances could not be loaded" empty="This workspace has no wallets yet.">
      {(data) => (
        <ul className="balances" aria-label="Balances per currency">
          {data.map((b) => (
            <li key={b.currency} className="card balance">
              <h3>
                {b.currency} {b.status !== 'live' && <span className="badge">{b.status.replace('_', ' ')}</span>}
              </h3>
              <dl>
                <dt>Available</dt>
                <dd>
                  <Amount value={b.available} currency={b.currency} />
                </dd>
                <dt>Pending</dt>
                <dd>
                  <Amount value={b.pending} currency={b.currency} />
                </dd>
                <dt>Ledger</dt>
                <dd>
                  <Amount value={b.ledger} currency={b.currency} />
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </QueryResult>
  );
}

function RecentActivity() {
  const transactions = useApiQuery('/transactions', { params: { query: { limit: 10 } } });
  return (
    <QueryResult
      query={transactions}
      loading="Loading recent activity…"
      failed="Recent activity could not be loaded"
      empty="No transactions yet. Payouts and deposits show up here."
    >
      {(data) => (
        <Table columns={['When', 'What', 'Status', 'Amount']} caption="The ten most recent transactions">
          {data.map((t) => (
            <TransactionRow key={t.id} t={t} />
          ))}
        </Table>
      )}
    </QueryResult>
  );
}

export function Home() {
  return (
    <>
      <PageHeader title="Home" />
      <section aria-labelledby="balances-title">
        <h2 id="balances-title">Balances</h2>
        <Balances />
      </section>
      <section aria-labelledby="activity-title">
        <div className="section-head">
          <h2 id="activity-title">Recent activity</h2>
          <Link href="/transactions">All transactions</Link>
        </div>
        <RecentActivity />
      </section>
    </>
  );
}
