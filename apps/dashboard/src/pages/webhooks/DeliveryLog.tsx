import { useEffect, useRef } from 'react';
import { numberIn, useAddress } from '../../address';
import { newIdempotencyKey, type Schemas } from '../../api';
import { useApiMutation, useApiQuery, usePagedList, useReadOnly } from '../../queries';
import { Button, DetailList, ErrorNote, FilterInput, FilterSelect, oneOf, QueryResult, RowsSelect, Table, Time, Pager, fromLocalInput } from '../../ui';

type Delivery = Schemas['WebhookDelivery'];

const LIMITS = [20, 50, 100];
const OUTCOMES = ['true', 'false'] as const;

function Outcome({ d }: { d: Pick<Delivery, 'ok' | 'statusCode' | 'attempts' | 'error'> & { completedAt?: string | null } }) {
  if (d.completedAt === null) return <span className="badge badge-processing">pending</span>;
  return (
    <div>
      <span className={d.ok ? 'badge badge-active' : 'badge badge-failed'}>{d.ok ? 'delivered' : 'failed'}</span>
      <div className="small">
        {d.statusCode === null ? 'no answer' : `HTTP ${d.statusCode}`} · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
      </div>
      {d.error && <div className="small error-text">{d.error}</div>}
    </div>
  );
}

/**
 * One delivery as the API stored it: what was sent (payload, headers), what
 * came back, and (unless the user only reads) a Resend button (a new
 * dispatch with the same delivery id).
 */
function DeliveryDetail({ id, urlOf, onClose }: { id: number; urlOf: Map<number, string>; onClose: () => void }) {
  const detail = useApiQuery('/webhook-deliveries/{id}', { params: { path: { id: String(id) } } });
  const heading = useRef<HTMLHeadingElement>(null);
  const readOnly = useReadOnly();
  useEffect(() => heading.current?.focus(), [id]);
  // Idempotent: a retried click answers the same new dispatch instead of sending twice.
  const resend = useApiMutation(
    'post',
    '/webhook-deliveries/{id}/resend',
    (idempotencyKey: string) => ({ params: { path: { id: String(id) }, header: { 'Idempotency-Key': idempotencyKey } } }),
    ['/webhook-deliveries'],
  );
  return (
    <section className="card delivery-detail" aria-labelledby={`delivery-${id}-title`}>
      <div className="section-head">
        <h3 id={`delivery-${id}-title`} ref={heading} tabIndex={-1}>
          Delivery #{id}
        </h3>
        <Button onClick={onClose}>Close</Button>
      </div>
      <QueryResult query={detail} loading="Loading the delivery…" failed="The delivery could not be loaded">
        {(d) => (
          <>
            <DetailList
              fields={[
                ['Delivery id (X-Cowrie-Delivery)', d.deliveryId],
                ['Dispatch', d.dispatch === 0 ? '0 (first send)' : `${d.dispatch} (resend)`],
                ['Event', d.event],
                ['Endpoint', urlOf.get(d.endpointId) ?? `#${d.endpointId}`],
                ['Created', d.createdAt],
                ['Completed', d.completedAt ?? 'pending'],
                ['Status', d.statusCode === null ? 'no answer' : `HTTP ${d.statusCode}`],
                ['Attempts', String(d.attempts)],
                ['Last error', d.error ?? '—'],
                ['Mode', d.livemode ? 'live' : 'test'],
              ]}
            />
            <h4>Request headers sent</h4>
            {d.requestHeaders ? (
              <dl className="headers mono small">
                {Object.entries(d.requestHeaders).map(([name, value]) => (
                  <div key={name}>
                    <dt>{name}</dt>
                    <dd className="url">{value}</dd>
                  </div>
                ))}
              </dl>
            ) : (
              <p className="muted small">Nothing was sent yet.</p>
            )}
            <h4>Response excerpt</h4>
            {d.responseExcerpt ? <pre className="payload">{d.responseExcerpt}</pre> : <p className="muted small">No answer body.</p>}
            <h4>Payload</h4>
            <pre className="payload">{JSON.stringify(d.payload, null, 2)}</pre>
            {!readOnly && (
              <div className="button-row">
                <Button variant="primary" busy={resend.isPending} busyLabel="Resending…" onClick={() => resend.mutate(newIdempotencyKey())}>
                  Resend
                </Button>
              </div>
            )}
            {resend.data && !resend.isPending && (
              <p className="note note-ok" role="status">
                Resent as delivery #{resend.data.id} (dispatch {resend.data.dispatch}, same delivery id {resend.data.deliveryId}); it shows in the log once
                sent.
              </p>
            )}
            <ErrorNote error={resend.error} prefix="Not resent" />
          </>
        )}
      </QueryResult>
    </section>
  );
}

/** The delivery log, newest first: filters (endpoint, event, outcome, time), cursor paging, each delivery's detail. */
export function DeliveryLog({ endpoints }: { endpoints: Schemas['WebhookEndpoint'][] }) {
  // The filters, the page and the open delivery are the address's (a link opens the same view).
  const address = useAddress();
  const endpointId = address.get('endpoint');
  const event = address.get('event');
  const ok = oneOf(address.get('ok'), OUTCOMES);
  const from = address.get('from');
  const to = address.get('to');
  const limit = numberIn(address.get('limit'), LIMITS, 20);
  const open = Number(address.get('delivery')) || null;
  const setOpen = (id: number | null) => address.set({ delivery: id }, { paging: true });
  const types = useApiQuery('/webhook-event-types');
  const fromIso = fromLocalInput(from);
  const toIso = fromLocalInput(to);
  const query = {
    limit,
    ...(endpointId && { endpoint_id: Number(endpointId) }),
    ...(event && { event }),
    ...(ok && { ok }),
    ...(fromIso && { from: fromIso }),
    ...(toIso && { to: toIso }),
  };
  const { page, pager, rows } = usePagedList('/webhook-deliveries', query);
  const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
  const filtered = endpointId || event || ok || from || to;
  return (
    <section aria-labelledby="log-title">
      <div className="section-head">
        <h2 id="log-title">Delivery log</h2>
        <Button onClick={() => void page.refetch()} busy={page.isFetching} busyLabel="Refreshing…">
          Refresh
        </Button>
      </div>
      <div className="filters card" role="group" aria-label="Delivery filters">
        <FilterSelect
          id="log-endpoint"
          label="Endpoint"
          value={endpointId}
          onChange={(v) => address.set({ endpoint: v })}
          anyLabel="All endpoints"
          choices={endpoints.map((e) => ({ value: String(e.id), label: e.url }))}
        />
        <FilterSelect
          id="log-event"
          label="Event"
          value={event}
          onChange={(v) => address.set({ event: v })}
          anyLabel="Any event"
          // ping first (and while the API's list loads or if it fails); the list names it too, so it is left out there.
          choices={['ping', ...(types.data ?? []).map((t) => t.name).filter((name) => name !== 'ping')]}
        />
        <FilterSelect
          id="log-outcome"
          label="Outcome"
          value={ok}
          onChange={(v) => address.set({ ok: v })}
          choices={[
            { value: 'true', label: 'Delivered' },
            { value: 'false', label: 'Failed' },
          ]}
        />
        <FilterInput id="log-from" label="From" type="datetime-local" value={from} onChange={(v) => address.set({ from: v })} />
        <FilterInput id="log-to" label="Before" type="datetime-local" value={to} onChange={(v) => address.set({ to: v })} />
        <RowsSelect id="log-limit" value={limit} onChange={(v) => address.set({ limit: v })} sizes={LIMITS} />
      </div>
      <ErrorNote error={types.error} prefix="Event names could not be loaded" />
      <QueryResult
        query={rows}
        loading="Loading deliveries…"
        failed="The delivery log could not be loaded"
        empty={filtered ? 'No deliveries match these filters.' : 'No deliveries yet. Send a test ping to an endpoint to see one here.'}
      >
        {(data) => (
          <Table columns={['When', 'Event', 'Endpoint', 'Result', 'Delivery']} caption="Webhook deliveries" stale={page.isPlaceholderData}>
            {data.map((d) => (
              <tr key={d.id} className={d.id === open ? 'selected' : undefined}>
                <td data-label="When">
                  <Time value={d.createdAt} />
                </td>
                <td className="mono" data-label="Event">
                  {d.event}
                </td>
                <td className="mono small url" data-label="Endpoint">
                  {urlOf.get(d.endpointId) ?? `#${d.endpointId}`}
                </td>
                <td data-label="Result">
                  <Outcome d={d} />
                </td>
                <td data-label="Delivery">
                  <div>
                    <div className="small mono url">{d.deliveryId}</div>
                    <div className="small muted">dispatch {d.dispatch}</div>
                    <Button onClick={() => setOpen(d.id)} aria-expanded={d.id === open}>
                      Details <span className="visually-hidden">of delivery #{d.id}</span>
                    </Button>
                  </div>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
      <Pager {...pager} />
      {open !== null && <DeliveryDetail key={open} id={open} urlOf={urlOf} onClose={() => setOpen(null)} />}
    </section>
  );
}
