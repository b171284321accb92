import { Link } from 'wouter';
import { useApiQuery } from '../queries';
import type { Schemas } from '../api';
import { Amount, PageHeader, QueryResult, Table, Time } from '../ui';
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

const RAIL_NAMES: Record<string, string> = { sandbox: 'Sandbox', paystack: 'Paystack', flutterwave: 'Flutterwave' };
const BREAKER: Record<Schemas['PayoutRailState']['state'], string> = {
  closed: 'Closed: in use',
  open: 'Open: passed over',
  half_open: 'Half-open: one probe payout may try it',
};

/** Each payout rail and its breaker: a rail that failed on its own is passed over until its cool-down ends, then one payout probes it. */
function PayoutRails() {
  const rails = useApiQuery('/payout-rails');
  return (
    <QueryResult query={rails} loading="Loading payout rails…" failed="The payout rails could not be loaded">
      {(data) => (
        <>
          <Table columns={['Rail', 'Breaker', 'Failures in a row', 'Passed over until']} caption="Payout rails in order of preference, and their breakers">
            {data.map((r) => (
              <tr key={r.rail}>
                <th scope="row" data-label="Rail">
                  {RAIL_NAMES[r.rail] ?? r.rail}
                </th>
                <td data-label="Breaker">
                  <span className={`badge badge-breaker-${r.state}`}>{BREAKER[r.state]}</span>
                </td>
                <td data-label="Failures in a row">{r.failures}</td>
                <td data-label="Passed over until">{r.state === 'open' ? <Time value={r.open_until} /> : <span className="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
          <p className="hint">
            {data.length > 1
              ? 'A payout goes to the first rail whose breaker lets it through, and moves to the next only when a rail certainly did not take it.'
              : 'One payout rail: there is nothing to fail over to.'}
          </p>
        </>
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
      <section aria-labelledby="rails-title">
        <h2 id="rails-title">Payout rails</h2>
        <PayoutRails />
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
