import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useAddress } from '../address';
import { newIdempotencyKey, type PathOf, type Schemas } from '../api';
import { useApiMutation, useApiQuery, useMyRole, usePagedList } from '../queries';
import { useSession } from '../session';
import { Amount, Button, ErrorNote, FilterSelect, oneOf, PageHeader, Pager, QueryResult, Table, Time } from '../ui';

type PayoutRequest = Schemas['PayoutRequest'];
/** A decision changes the requests, and an approval the balances and the ledger. */
const DECISION_READS: PathOf<'get'>[] = ['/payout-requests', '/balances', '/transactions'];
const STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;

/** Whom a payout goes to, as the request names them. */
function Counterparty({ r }: { r: PayoutRequest }) {
  return (
    <div>
      {r.counterparty_name ?? r.counterparty_account}
      <div className="muted small">
        <span className="mono">{r.counterparty_account}</span>
        {r.counterparty_bank ? ` · ${r.counterparty_bank}` : ''} · {r.kind}
      </div>
    </div>
  );
}

/**
 * A pending request's decision. Approving sends the payout (the service asks
 * for a step-up first when the session has not proved its user recently);
 * rejecting asks for an optional reason. Its requester cannot approve it, and
 * may withdraw it; members only read.
 */
function Decide({ r, mine, decides }: { r: PayoutRequest; mine: boolean; decides: boolean }) {
  const id = useId();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  // One key per decision shown: a retried click is answered once.
  const [keys] = useState(() => ({ approve: newIdempotencyKey(), reject: newIdempotencyKey() }));
  const approve = useApiMutation(
    'post',
    '/payout-requests/{id}/approve',
    () => ({ params: { path: { id: String(r.id) }, header: { 'Idempotency-Key': keys.approve } } }),
    DECISION_READS,
  );
  const reject = useApiMutation(
    'post',
    '/payout-requests/{id}/reject',
    () => ({
      params: { path: { id: String(r.id) }, header: { 'Idempotency-Key': keys.reject } },
      body: reason.trim() ? { reason: reason.trim() } : {},
    }),
    DECISION_READS,
  );
  if (!decides) return <span className="muted small">An owner or admin decides</span>;
  const submitReject = (event: FormEvent) => {
    event.preventDefault();
    reject.mutate();
  };
  return (
    <div className="actions">
      {mine ? (
        <span className="muted small">Yours: another owner or admin approves it</span>
      ) : (
        !rejecting && (
          <Button variant="primary" busy={approve.isPending} busyLabel="Approving…" onClick={() => approve.mutate()}>
            Approve and send
          </Button>
        )
      )}
      {rejecting ? (
        <form className="inline-field" onSubmit={submitReject} aria-label={`Reject the payout request ${r.id}`}>
          <label htmlFor={`${id}-reason`}>Reason (optional)</label>
          <input id={`${id}-reason`} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} autoFocus />
          <Button type="submit" variant="danger" busy={reject.isPending} busyLabel="Rejecting…">
            {mine ? 'Withdraw it' : 'Reject it'}
          </Button>
          {!reject.isPending && <Button onClick={() => setRejecting(false)}>Cancel</Button>}
        </form>
      ) : (
        !approve.isPending && (
          <Button variant="danger" onClick={() => setRejecting(true)}>
            {mine ? 'Withdraw' : 'Reject'}
          </Button>
        )
      )}
      <ErrorNote error={approve.error} prefix="Not approved" />
      <ErrorNote error={reject.error} prefix="Not rejected" />
    </div>
  );
}

/** What became of a request: its status, who decided, and its payout. */
function Outcome({ r }: { r: PayoutRequest }) {
  return (
    <div>
      <span className={`badge badge-${r.status}`}>{r.status}</span>
      {r.decided_by && (
        <div className="muted small">
          by {r.decided_by.email} <Time value={r.decided_at} />
        </div>
      )}
      {r.rejection_reason && <div className="small">“{r.rejection_reason}”</div>}
      {r.transaction && (
        <div className="small">
          payout <span className="mono">{r.transaction.reference}</span>: {r.transaction.status}
        </div>
      )}
    </div>
  );
}

function RequestRow({ r, decide }: { r: PayoutRequest; decide?: { mine: boolean; decides: boolean } }) {
  return (
    <tr>
      <td data-label="Asked">
        <div>
          <Time value={r.created_at} />
          <div className="muted small url">by {r.requested_by.email}</div>
        </div>
      </td>
      <td data-label="To">
        <Counterparty r={r} />
      </td>
      <td data-label="Amount" className="num">
        <Amount value={r.amount} currency={r.currency} />
      </td>
      {decide ? (
        <>
          <td data-label="Expires">
            <Time value={r.expires_at} />
          </td>
          <td data-label="Decision">
            <Decide r={r} mine={decide.mine} decides={decide.decides} />
          </td>
        </>
      ) : (
        <td data-label="Status">
          <Outcome r={r} />
        </td>
      )}
    </tr>
  );
}

/**
 * The thresholds of this side (live or test): owners change them (with a
 * step-up), everyone else reads them. A currency without one never waits.
 */
function Thresholds({ owner }: { owner: boolean }) {
  const settings = useApiQuery('/workspace/settings');
  const balances = useApiQuery('/balances');
  const [editing, setEditing] = useState<Record<string, string> | null>(null);
  const save = useApiMutation(
    'put',
    '/workspace/settings',
    () => ({
      body: { payout_approval_thresholds: Object.fromEntries(Object.entries(editing ?? {}).filter(([, v]) => v.trim() !== '')) },
    }),
    ['/workspace/settings'],
  );
  const current = settings.data?.payout_approval_thresholds ?? {};
  const currencies = [...new Set([...(balances.data ?? []).map((b) => b.currency), ...Object.keys(current)])];
  return (
    <section className="card" aria-labelledby="thresholds-title">
      <h2 id="thresholds-title">Approval thresholds</h2>
      <p className="hint">
        A payout from the dashboard above its currency&apos;s threshold is not sent: it waits here for another owner or admin, for 24 hours. Payouts through the
        API never wait.
      </p>
      <QueryResult query={settings} loading="Loading the settings…" failed="The settings could not be loaded">
        {() =>
          editing ? (
            <form
              className="form"
              aria-label="Approval thresholds"
              onSubmit={(e) => {
                e.preventDefault();
                save.mutate(undefined, { onSuccess: () => setEditing(null) });
              }}
            >
              {currencies.map((c) => (
                <span key={c} className="field">
                  <label htmlFor={`threshold-${c}`}>{`Threshold (${c})`}</label>
                  <input
                    id={`threshold-${c}`}
                    inputMode="decimal"
                    autoComplete="off"
                    pattern="\d+(\.\d+)?"
                    placeholder="No approval needed"
                    value={editing[c] ?? ''}
                    onChange={(e) => setEditing({ ...editing, [c]: e.target.value.trim() })}
                  />
                </span>
              ))}
              <p className="hint">Leave a currency empty for no approvals in it; 0 makes every payout in it wait.</p>
              <ErrorNote error={save.error} prefix="Not saved" />
              <div className="button-row">
                <Button type="submit" variant="primary" busy={save.isPending} busyLabel="Saving…">
                  Save thresholds
                </Button>
                {!save.isPending && <Button onClick={() => setEditing(null)}>Cancel</Button>}
              </div>
            </form>
          ) : (
            <>
              {Object.keys(current).length === 0 ? (
                <p className="note note-empty">Off: every payout is sent at once.</p>
              ) : (
                <ul aria-label="Thresholds in force">
                  {Object.entries(current).map(([c, amount]) => (
                    <li key={c}>
                      {c}: payouts above <Amount value={amount} currency={c} /> wait for an approval
                    </li>
                  ))}
                </ul>
              )}
              {owner ? <Button onClick={() => setEditing({ ...current })}>Change thresholds</Button> : <p className="muted small">Owners change them.</p>}
            </>
          )
        }
      </QueryResult>
    </section>
  );
}

/**
 * Maker-checker for payouts: the requests waiting for a decision first (with
 * approve and reject), then every request with its outcome, and the
 * thresholds that make them.
 */
export function PayoutRequests() {
  const { email } = useSession();
  const role = useMyRole();
  const pending = useApiQuery('/payout-requests', { params: { query: { status: 'pending', limit: 100 } } });
  // The filter and the page are the address's (a link opens the same view).
  const address = useAddress();
  const status = oneOf(address.get('status'), STATUSES);
  const { page, pager, rows } = usePagedList('/payout-requests', status ? { status } : {});
  const mine = (r: PayoutRequest) => !!email && r.requested_by.email.toLowerCase() === email.toLowerCase();
  const decides = role === 'owner' || role === 'admin';
  return (
    <>
      <PageHeader title="Payout requests">
        <p className="lead">
          Payouts above an approval threshold wait here until another owner or admin approves them (they are then sent) or rejects them. Send one from{' '}
          <Link href="/payouts">Payouts</Link>.
        </p>
      </PageHeader>
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">Waiting for approval</h2>
        <QueryResult query={pending} loading="Loading requests…" failed="Requests could not be loaded" empty="Nothing waits for an approval.">
          {(list) => (
            <Table columns={['Asked', 'To', 'Amount', 'Expires', 'Decision']} caption="Waiting for approval">
              {list.map((r) => (
                <RequestRow key={r.id} r={r} decide={{ mine: mine(r), decides }} />
              ))}
            </Table>
          )}
        </QueryResult>
      </section>
      <section aria-labelledby="all-title">
        <div className="section-head">
          <h2 id="all-title">All requests</h2>
          <FilterSelect id="request-status" label="Status" value={status} onChange={(v) => address.set({ status: v })} choices={STATUSES} />
        </div>
        <QueryResult query={rows} loading="Loading requests…" failed="Requests could not be loaded" empty="No payout requests yet.">
          {(list) => (
            <Table columns={['Asked', 'To', 'Amount', 'Status']} caption="All payout requests" stale={page.isPlaceholderData}>
              {list.map((r) => (
                <RequestRow key={r.id} r={r} />
              ))}
            </Table>
          )}
        </QueryResult>
        <Pager {...pager} />
      </section>
      <Thresholds owner={role === 'owner'} />
    </>
  );
}
