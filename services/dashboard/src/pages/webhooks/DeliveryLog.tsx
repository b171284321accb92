import { useState } from 'react';
import type { Schemas } from '../../api';
import { useApiQuery } from '../../queries';
import { Button, QueryResult, Table, Time } from '../../ui';

const LIMITS = [20, 50, 100];

/**
 * The delivery log, newest first, filtered by endpoint. (Next: cursor paging,
 * the event/ok/date filters, a detail view and resend slot in here.)
 */
export function DeliveryLog({ endpoints }: { endpoints: Schemas['WebhookEndpoint'][] }) {
  const [endpointId, setEndpointId] = useState('');
  const [limit, setLimit] = useState(20);
  const query = new URLSearchParams({ limit: String(limit), ...(endpointId ? { endpoint_id: endpointId } : {}) });
  const deliveries = useApiQuery<Schemas['WebhookDelivery'][]>(`/webhook-deliveries?${query}`);
  const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
  return (
    <section aria-labelledby="log-title">
      <div className="section-head">
        <h2 id="log-title">Delivery log</h2>
        <div className="filters">
          <label htmlFor="log-endpoint">Endpoint</label>
          <select id="log-endpoint" value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
            <option value="">All endpoints</option>
            {endpoints.map((e) => (
              <option key={e.id} value={String(e.id)}>
                {e.url}
              </option>
            ))}
          </select>
          <label htmlFor="log-limit">Rows</label>
          <select id="log-limit" value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {LIMITS.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <Button onClick={() => deliveries.refetch()} busy={deliveries.isFetching} busyLabel="Refreshing…">
            Refresh
          </Button>
        </div>
      </div>
      <QueryResult
        query={deliveries}
        loading="Loading deliveries…"
        failed="The delivery log could not be loaded"
        empty="No deliveries yet. Send a test ping to an endpoint to see one here."
      >
        {(data) => (
          <Table columns={['When', 'Event', 'Endpoint', 'Result', 'Payload']} className="deliveries">
            {data.map((d) => (
              <tr key={d.id}>
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
                  <div>
                    <span className={d.ok ? 'badge badge-active' : 'badge badge-failed'}>{d.ok ? 'delivered' : 'failed'}</span>
                    <div className="small">
                      {d.statusCode === null ? 'no answer' : `HTTP ${d.statusCode}`} · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                    </div>
                    {d.error && <div className="small error-text">{d.error}</div>}
                  </div>
                </td>
                <td data-label="Payload">
                  <details>
                    <summary>
                      Show <span className="visually-hidden">payload of delivery {d.deliveryId}</span>
                    </summary>
                    <p className="small mono url">Delivery id {d.deliveryId}</p>
                    <pre className="payload">{JSON.stringify(d.payload, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryResult>
    </section>
  );
}
