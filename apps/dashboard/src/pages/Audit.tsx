import { numberIn, useAddress, useAddressField } from '../address';
import { ApiError, type Schemas } from '../api';
import { usePagedList } from '../queries';
import {
  Button,
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
  WhenCell,
  dayAfter,
  fromLocalInput,
} from '../ui';

type AuditEvent = Schemas['AuditEvent'];
type AuditAction = Schemas['AuditAction'];

/** Every action of the API's catalog, in its order (the compiler checks the list against the API's). */
const ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out',
  'user.password_changed',
  'user.password_reset_requested',
  'user.password_reset',
  'user.mfa_enrolled',
  'user.mfa_disabled',
  'user.mfa_reset',
  'user.recovery_code_used',
  'user.invited',
  'user.removed',
  'user.role_changed',
  'user.created',
  'user.disabled',
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'payout.sent',
  'payout_request.created',
  'payout_request.approved',
  'payout_request.rejected',
  'beneficiary.created',
  'beneficiary.removed',
  'wallet.credited',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rolled',
  'webhook_endpoint.recovered',
  'webhook_delivery.resent',
  'verification.guard_cleared',
  'workspace.created',
  'workspace.settings_changed',
] as const satisfies readonly AuditAction[];
// A new action of the API that this list lacks does not compile.
const EVERY_ACTION_LISTED: Exclude<AuditAction, (typeof ACTIONS)[number]> extends never ? true : never = true;
void EVERY_ACTION_LISTED;

const PAGE_SIZES = [25, 50, 100];

/** Who acted, as a person reads it. */
function actorOf(a: AuditEvent['actor']): { who: string; what: string } {
  switch (a.type) {
    case 'user':
      return { who: a.email ?? `user #${a.user_id}`, what: `dashboard user #${a.user_id}` };
    case 'api_key':
      return { who: a.api_key_prefix ?? 'an API key', what: 'API key' };
    case 'operator':
      return { who: a.operator ?? 'the operator', what: 'operator CLI' };
    case 'anonymous':
      return { who: 'nobody signed in', what: 'a sign-in attempt' };
  }
}

/** A detail's value as text: strings as they are, anything else as JSON. */
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function AuditRow({ e }: { e: AuditEvent }) {
  const actor = actorOf(e.actor);
  const details = Object.entries(e.details);
  return (
    <tr>
      <WhenCell label="When" at={e.created_at} reference={e.request_id} />
      <td data-label="Action">
        <div>
          <span className="mono">{e.action}</span>
          {!e.livemode && <span className="badge badge-test">test</span>}
        </div>
      </td>
      <td data-label="Who">
        <div>
          <span className="url">{actor.who}</span>
          <div className="muted small">{actor.what}</div>
        </div>
      </td>
      <td data-label="On">
        <span className="mono small">
          {e.object.type}
          {e.object.id !== null && ` #${e.object.id}`}
        </span>
      </td>
      <td data-label="From">
        <div>
          {e.client_address ?? <span className="muted">—</span>}
          {e.user_agent && <div className="muted small url">{e.user_agent}</div>}
        </div>
      </td>
      <td data-label="Details">
        {details.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <ul className="audit-details small">
            {details.map(([key, value]) => (
              <li key={key}>
                <span className="muted">{key}:</span> <span className="mono url">{shown(value)}</span>
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

/**
 * The audit trail (owners and admins): every action taken in this workspace,
 * newest first, filtered by action, who and dates, a page at a time, and the
 * filtered set as a CSV download. Live and test actions are in one list.
 */
export function Audit() {
  // The filters and the page are the address's (a link opens the same view).
  const address = useAddress();
  const action = oneOf(address.get('action'), ACTIONS);
  const actor = address.get('actor');
  const [actorText, setActorText] = useAddressField(actor);
  const from = address.get('from');
  const until = address.get('until');
  const limit = numberIn(address.get('limit'), PAGE_SIZES, 25);
  const fromIso = fromLocalInput(from);
  const toIso = dayAfter(until);
  const filters = {
    ...(action && { action }),
    ...(actor && { actor }),
    ...(fromIso && { from: fromIso }),
    ...(toIso && { to: toIso }),
  };
  const { page, pager, rows } = usePagedList('/audit-events', { limit, ...filters });
  const filtered = action || actor || from || until;
  const refused = rows.error instanceof ApiError && rows.error.status === 403;
  return (
    <>
      <PageHeader title="Audit trail">
        <p className="lead">
          Who did what in this workspace, newest first: sign-ins, API keys, the team, payouts sent from here, webhook endpoints and the operator&apos;s actions,
          live and test alike. Rows are never changed or removed.
        </p>
      </PageHeader>
      {refused ? (
        <ErrorNote error="Only owners and admins can read the audit trail." />
      ) : (
        <>
          <form
            className="filters card"
            role="group"
            aria-label="Filters"
            onSubmit={(ev) => {
              ev.preventDefault();
              address.set({ actor: actorText.trim() });
            }}
          >
            <FilterSelect id="audit-action" label="Action" value={action} onChange={(v) => address.set({ action: v })} choices={ACTIONS} />
            <FilterInput
              id="audit-actor"
              label="Who"
              type="search"
              maxLength={254}
              value={actorText}
              onChange={setActorText}
              placeholder="Email, user id, key prefix, user@host"
            />
            <FilterInput id="audit-from" label="From" type="date" value={from} onChange={(v) => address.set({ from: v })} />
            <FilterInput id="audit-until" label="Until" type="date" value={until} onChange={(v) => address.set({ until: v })} />
            <Button type="submit">Search</Button>
            <RowsSelect id="audit-limit" value={limit} onChange={(v) => address.set({ limit: v })} sizes={PAGE_SIZES} />
          </form>
          <DownloadCsv
            path="/audit-events/export"
            query={filters}
            scope={filtered ? 'Every row these filters keep, not only this page.' : 'The whole trail, not only this page.'}
          />
          <QueryResult
            query={rows}
            loading="Loading the audit trail…"
            failed="The audit trail could not be loaded"
            empty={filtered ? 'No actions match these filters.' : 'Nothing recorded yet.'}
          >
            {(items) => (
              <Table columns={['When', 'Action', 'Who', 'On', 'From', 'Details']} caption="Audit trail" stale={page.isPlaceholderData}>
                {items.map((e) => (
                  <AuditRow key={e.id} e={e} />
                ))}
              </Table>
            )}
          </QueryResult>
          <Pager {...pager} />
        </>
      )}
    </>
  );
}
