import { useState, type FormEvent } from 'react';
import type { Schemas } from '../api';
import { useApiMutation, useApiQuery, useReadOnly } from '../queries';
import { useShownOnceForMode } from '../session';
import { Button, ErrorNote, OwnersAndAdminsOnly, PageHeader, QueryResult, SecretOnce } from '../ui';
import { DeliveryLog } from './webhooks/DeliveryLog';
import { EndpointCard, type ShownSecret } from './webhooks/EndpointCard';
import { EventPicker } from './webhooks/EventPicker';

function CreateEndpoint({ onCreated, onCancel }: { onCreated: (endpoint: Schemas['CreatedWebhookEndpoint']) => void; onCancel: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState(['*']);
  const create = useApiMutation('post', '/webhook-endpoints', () => ({ body: { url, events } }), ['/webhook-endpoints']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, {
      onSuccess: (endpoint) => {
        setUrl('');
        onCreated(endpoint);
      },
    });
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-endpoint-title">
      <h3 id="create-endpoint-title">Add an endpoint</h3>
      <label htmlFor="endpoint-url">URL</label>
      <input
        id="endpoint-url"
        type="url"
        required
        autoFocus
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://example.com/cowrie/webhooks"
      />
      <EventPicker value={events} onChange={setEvents} />
      <ErrorNote error={create.error} prefix="The endpoint was not added" />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={create.isPending} busyLabel="Adding…">
          Add endpoint
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

export function Webhooks() {
  const endpoints = useApiQuery('/webhook-endpoints');
  const readOnly = useReadOnly();
  const [shown, setShown] = useShownOnceForMode<ShownSecret>();
  const [adding, setAdding] = useState(false);
  return (
    <>
      <PageHeader title="Webhooks">
        <p className="lead">Cowrie posts signed events to these URLs. Verify each request with the endpoint&apos;s signing secret.</p>
      </PageHeader>
      {shown && (
        <SecretOnce
          label={shown.title}
          value={shown.secret}
          also={{ label: 'The same secret for Standard Webhooks libraries', value: shown.standardWebhooksSecret, copyLabel: 'Copy whsec_' }}
          onDone={() => setShown(null)}
        >
          <p className="hint">{shown.note}</p>
          <p className="hint">
            Verify X-Cowrie-Signature with the first (@cowrie/sdk&apos;s verifyWebhookSignature), or the webhook-signature header with the second (a Standard
            Webhooks library such as the standardwebhooks npm package).
          </p>
        </SecretOnce>
      )}
      <section aria-labelledby="endpoints-title">
        <div className="section-head">
          <h2 id="endpoints-title">Endpoints</h2>
          {!adding && !readOnly && (
            <Button variant="primary" onClick={() => setAdding(true)}>
              Add an endpoint
            </Button>
          )}
        </div>
        {readOnly && <OwnersAndAdminsOnly>Only owners and admins add, change, test or delete endpoints and resend deliveries.</OwnersAndAdminsOnly>}
        {adding && !readOnly && (
          <CreateEndpoint
            onCancel={() => setAdding(false)}
            onCreated={(endpoint) => {
              setAdding(false);
              setShown({
                title: `Signing secret for ${endpoint.url}`,
                secret: endpoint.secret,
                standardWebhooksSecret: endpoint.standard_webhooks_secret,
                note: 'Every delivery to this endpoint is signed with it.',
              });
            }}
          />
        )}
        <QueryResult
          query={endpoints}
          loading="Loading endpoints…"
          failed="Endpoints could not be loaded"
          empty={readOnly ? 'No endpoints yet.' : 'No endpoints yet. Add one to receive events.'}
        >
          {(data) => (
            <ul className="endpoints">
              {data.map((e) => (
                <EndpointCard key={e.id} endpoint={e} readOnly={readOnly} onSecret={setShown} />
              ))}
            </ul>
          )}
        </QueryResult>
      </section>
      <DeliveryLog endpoints={endpoints.data ?? []} />
    </>
  );
}
