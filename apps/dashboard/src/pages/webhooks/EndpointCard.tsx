import { useId, useState, type FormEvent } from 'react';
import { newIdempotencyKey, type Schemas } from '../../api';
import { useApiMutation } from '../../queries';
import { Button, ConfirmButton, ErrorNote, GraceSelect, Time, fromLocalInput } from '../../ui';
import { EventPicker } from './EventPicker';

type Endpoint = Schemas['WebhookEndpoint'];
/** A signing secret as the API answered it once: the 64-hex form and the same key in Standard Webhooks form. */
export type ShownSecret = { title: string; secret: string; standardWebhooksSecret: string; note: string };

/** How long a rolled secret still signs deliveries, in seconds. */
const GRACE_CHOICES = [
  { seconds: 0, label: 'Stop signing with the old secret now' },
  { seconds: 3600, label: 'Sign with both for 1 hour' },
  { seconds: 86400, label: 'Sign with both for 24 hours' },
];

function TestResult({ result }: { result: Schemas['WebhookTestResult'] }) {
  return (
    <p className={result.ok ? 'note note-ok' : 'note note-error'} role="status">
      {result.ok ? 'Test ping delivered' : 'Test ping failed'}
      {result.status_code !== null && `: HTTP ${result.status_code}`}
      {` after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}`}
      {result.error && result.error !== `HTTP ${result.status_code}` && ` (${result.error})`}
    </p>
  );
}

function EditEndpoint({ endpoint, onDone }: { endpoint: Endpoint; onDone: () => void }) {
  const id = useId();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState(endpoint.events);
  const [active, setActive] = useState(endpoint.active);
  const save = useApiMutation(
    'put',
    '/webhook-endpoints/{id}',
    // The url only when it changed: a new url is a guarded change (a step-up), the events and active are not.
    () => ({ params: { path: { id: String(endpoint.id) } }, body: url === endpoint.url ? { events, active } : { url, events, active } }),
    ['/webhook-endpoints'],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(undefined, { onSuccess: onDone });
  };
  return (
    <form className="form" onSubmit={submit} aria-label={`Edit endpoint ${endpoint.url}`}>
      <label htmlFor={`${id}-url`}>URL</label>
      <input id={`${id}-url`} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <EventPicker value={events} onChange={setEvents} />
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        Active (deliveries are sent)
      </label>
      <ErrorNote error={save.error} prefix="Not saved" />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={save.isPending} busyLabel="Saving…">
          Save
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/**
 * Sends again every failed delivery to the endpoint since a time (the API's
 * recover): says how many were queued.
 */
function RecoverSince({ endpoint, onDone }: { endpoint: Endpoint; onDone: () => void }) {
  const id = useId();
  const [since, setSince] = useState('');
  // One key per submitted time: a retried submit answers the first recover instead of queueing again.
  const [key, setKey] = useState({ since: '', value: '' });
  const recover = useApiMutation(
    'post',
    '/webhook-endpoints/{id}/recover',
    ({ since: at, idempotencyKey }: { since: string; idempotencyKey: string }) => ({
      params: { path: { id: String(endpoint.id) }, header: { 'Idempotency-Key': idempotencyKey } },
      body: { since: at },
    }),
    ['/webhook-deliveries'],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const at = fromLocalInput(since);
    if (!at) return;
    const idempotencyKey = key.since === at ? key.value : newIdempotencyKey();
    setKey({ since: at, value: idempotencyKey });
    recover.mutate({ since: at, idempotencyKey });
  };
  return (
    <form className="form" onSubmit={submit} aria-label={`Recover failed deliveries to ${endpoint.url}`}>
      <label htmlFor={`${id}-since`}>Send again every failed delivery since</label>
      <input id={`${id}-since`} type="datetime-local" required autoFocus value={since} onChange={(e) => setSince(e.target.value)} />
      <p className="hint">Each failed delivery of an event (test pings excepted) is sent again with its delivery id, oldest first, behind live deliveries.</p>
      <div className="button-row">
        <Button type="submit" variant="primary" busy={recover.isPending} busyLabel="Queueing…">
          Recover
        </Button>
        <Button onClick={onDone}>Close</Button>
      </div>
      {recover.data && !recover.isPending && (
        <p className="note note-ok" role="status">
          {recover.data.queued === 0
            ? 'No failed deliveries since then: nothing to send again.'
            : `Queued ${recover.data.queued} failed deliver${recover.data.queued === 1 ? 'y' : 'ies'} to send again.`}
          {recover.data.has_more && ' More remain: recover again once these are sent.'}
        </p>
      )}
      <ErrorNote error={recover.error} prefix="Nothing recovered" />
    </form>
  );
}

/** Why Cowrie switched the endpoint off, and (unless the user only reads) a button to turn it back on (PUT active: true clears the reason). */
function DisabledNotice({ endpoint, readOnly }: { endpoint: Endpoint; readOnly: boolean }) {
  const enable = useApiMutation('put', '/webhook-endpoints/{id}', () => ({ params: { path: { id: String(endpoint.id) } }, body: { active: true } }), [
    '/webhook-endpoints',
  ]);
  return (
    <div className="note note-warning">
      <p>
        <strong>Switched off automatically</strong> <Time value={endpoint.disabled_at} />: {endpoint.disabled_reason}
      </p>
      {!readOnly && (
        <Button variant="primary" busy={enable.isPending} busyLabel="Turning on…" onClick={() => enable.mutate()}>
          Turn back on
        </Button>
      )}
      <ErrorNote error={enable.error} prefix="Still off" />
    </div>
  );
}

/** One endpoint and, unless the user only reads, its actions. */
export function EndpointCard({ endpoint, readOnly, onSecret }: { endpoint: Endpoint; readOnly: boolean; onSecret: (shown: ShownSecret) => void }) {
  const [editing, setEditing] = useState(false);
  const [recovering, setRecovering] = useState(false);
  const [grace, setGrace] = useState(86400);
  const id = useId();
  const ping = useApiMutation('post', '/webhook-endpoints/{id}/test', () => ({ params: { path: { id: String(endpoint.id) } } }), ['/webhook-deliveries']);
  // Idempotent: a retried roll answers the first roll's secret instead of making another.
  const roll = useApiMutation(
    'post',
    '/webhook-endpoints/{id}/roll-secret',
    (idempotencyKey: string) => ({
      params: { path: { id: String(endpoint.id) }, header: { 'Idempotency-Key': idempotencyKey } },
      body: { grace_seconds: grace },
    }),
    ['/webhook-endpoints'],
  );
  const remove = useApiMutation('delete', '/webhook-endpoints/{id}', () => ({ params: { path: { id: String(endpoint.id) } } }), [
    '/webhook-endpoints',
    '/webhook-deliveries',
  ]);
  return (
    <li className="card endpoint">
      <div className="endpoint-head">
        <h3 className="mono url">{endpoint.url}</h3>
        <span className={endpoint.active ? 'badge badge-active' : 'badge badge-revoked'}>{endpoint.active ? 'active' : 'inactive'}</span>
      </div>
      <p className="small">
        Events: <span className="mono">{endpoint.events.includes('*') ? 'every event' : endpoint.events.join(', ')}</span>
        <br />
        Created <Time value={endpoint.created_at} />
      </p>
      {endpoint.disabled_reason && <DisabledNotice endpoint={endpoint} readOnly={readOnly} />}
      {readOnly ? null : editing ? (
        <EditEndpoint endpoint={endpoint} onDone={() => setEditing(false)} />
      ) : (
        <div className="button-row">
          <Button variant="primary" busy={ping.isPending} busyLabel="Sending ping…" onClick={() => ping.mutate()}>
            Send test ping
          </Button>
          <Button onClick={() => setEditing(true)}>Edit</Button>
          <Button onClick={() => setRecovering(true)} aria-expanded={recovering}>
            Recover since…
          </Button>
          <span className="inline-field">
            <GraceSelect id={`${id}-grace`} label="Grace period for the old secret" choices={GRACE_CHOICES} value={grace} onChange={setGrace} />
            <Button
              busy={roll.isPending}
              busyLabel="Rolling…"
              onClick={() =>
                roll.mutate(newIdempotencyKey(), {
                  onSuccess: (rolled) =>
                    onSecret({
                      title: `New signing secret for ${rolled.url}`,
                      secret: rolled.secret,
                      standardWebhooksSecret: rolled.standard_webhooks_secret,
                      note: rolled.previous_secret_expires_at
                        ? `Until ${new Date(rolled.previous_secret_expires_at).toLocaleString()} every delivery carries two signatures (the new and the old secret); verify either.`
                        : 'The old secret no longer signs deliveries.',
                    }),
                })
              }
            >
              Roll secret
            </Button>
          </span>
          <ConfirmButton label="Delete" confirmLabel="Delete this endpoint" busy={remove.isPending} busyLabel="Deleting…" onConfirm={() => remove.mutate()} />
        </div>
      )}
      {recovering && !editing && !readOnly && <RecoverSince endpoint={endpoint} onDone={() => setRecovering(false)} />}
      {ping.data && !ping.isPending && <TestResult result={ping.data} />}
      <ErrorNote error={ping.error} prefix="Test ping not sent" />
      <ErrorNote error={roll.error} prefix="Secret not rolled" />
      <ErrorNote error={remove.error} prefix="Not deleted" />
    </li>
  );
}
