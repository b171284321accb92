import { useState, type FormEvent } from 'react';
import { newIdempotencyKey, type Schemas } from '../api';
import { useApiMutation, useApiQuery, useReadOnly } from '../queries';
import { useSession, useShownOnceForMode } from '../session';
import { Button, ConfirmButton, ErrorNote, GraceSelect, OwnersAndAdminsOnly, PageHeader, QueryResult, SecretOnce, Table, Time } from '../ui';

type ApiKey = Schemas['ApiKey'];
type Scope = ApiKey['scopes'][number];

const SCOPES: { scope: Scope; label: string }[] = [
  { scope: 'read', label: 'read: balances, transactions, verifications, deposits' },
  { scope: 'payouts:write', label: 'payouts:write: send transfers and withdrawals' },
  { scope: 'verification:write', label: 'verification:write: start and check verifications' },
  { scope: 'collections:write', label: 'collections:write: create collections and reserved accounts' },
];

/** How long a rolled key keeps working, in seconds. */
const GRACE_CHOICES = [
  { seconds: 0, label: 'old key stops now' },
  { seconds: 3600, label: 'old key works 1 h more' },
  { seconds: 86400, label: 'old key works 24 h more' },
];

function CreateKey({ onCreated }: { onCreated: (key: Schemas['CreatedApiKey']) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  // One key per attempt: a retry of the same submission is not a second key.
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const create = useApiMutation('post', '/api-keys', () => ({ body: { name, scopes }, params: { header: { 'Idempotency-Key': idempotencyKey } } }), [
    '/api-keys',
  ]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined, {
      onSuccess: (key) => {
        setName('');
        setIdempotencyKey(newIdempotencyKey());
        onCreated(key);
      },
    });
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <label htmlFor="key-name">Name</label>
      <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Checkout server" />
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label }) => (
          <label key={scope} className="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes((s) => (e.target.checked ? [...s, scope] : s.filter((x) => x !== scope)))}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <ErrorNote error={create.error} prefix="The key was not created" />
      <Button type="submit" variant="primary" busy={create.isPending} busyLabel="Creating…">
        Create key
      </Button>
    </form>
  );
}

/** A key and, unless the user only reads, its actions. */
function KeyRow({ apiKey, readOnly, onRolled }: { apiKey: ApiKey; readOnly: boolean; onRolled: (key: Schemas['RolledApiKey']) => void }) {
  const [grace, setGrace] = useState(3600);
  const revoke = useApiMutation('delete', '/api-keys/{id}', () => ({ params: { path: { id: String(apiKey.id) } } }), ['/api-keys']);
  const roll = useApiMutation(
    'post',
    '/api-keys/{id}/roll',
    (idempotencyKey: string) => ({
      params: { path: { id: String(apiKey.id) }, header: { 'Idempotency-Key': idempotencyKey } },
      body: { grace_seconds: grace },
    }),
    ['/api-keys'],
  );
  const label = apiKey.name ?? apiKey.prefix;
  return (
    <tr>
      <th scope="row" data-label="Key">
        <div>
          {apiKey.name ?? <span className="muted">(no name)</span>}
          <div className="mono small muted url">{apiKey.prefix}…</div>
        </div>
      </th>
      <td data-label="Scopes">{apiKey.scopes.join(', ')}</td>
      <td data-label="Status">
        <div>
          <span className={`badge badge-${apiKey.status}`}>{apiKey.status}</span>
          {apiKey.expires_at && (
            <div className="small muted">
              {apiKey.status === 'revoked' ? 'since' : 'until'} <Time value={apiKey.expires_at} />
            </div>
          )}
        </div>
      </td>
      <td data-label="Created">
        <Time value={apiKey.created_at} />
      </td>
      <td data-label="Last used">
        <Time value={apiKey.last_used_at} />
      </td>
      {!readOnly && (
        <td data-label="Actions">
          <div className="actions">
            {apiKey.status === 'active' && (
              <span className="inline-field">
                <GraceSelect id={`grace-${apiKey.id}`} label={`Grace period for rolling ${label}`} choices={GRACE_CHOICES} value={grace} onChange={setGrace} />
                <Button
                  aria-label={`Roll ${label}`}
                  busy={roll.isPending}
                  busyLabel="Rolling…"
                  onClick={() => roll.mutate(newIdempotencyKey(), { onSuccess: onRolled })}
                >
                  Roll
                </Button>
              </span>
            )}
            {/* An expiring key (the old one of a roll) can be stopped before its grace ends, as a leaked key must be; its successor is the one to roll. */}
            {(apiKey.status === 'active' || apiKey.status === 'expiring') && (
              <ConfirmButton
                label={`Revoke`}
                confirmLabel={`Revoke ${label} now`}
                busy={revoke.isPending}
                busyLabel="Revoking…"
                onConfirm={() => revoke.mutate()}
              />
            )}
          </div>
          <ErrorNote error={revoke.error ?? roll.error} />
        </td>
      )}
    </tr>
  );
}

export function ApiKeys() {
  const { mode } = useSession();
  const keys = useApiQuery('/api-keys');
  const readOnly = useReadOnly();
  const [shown, setShown] = useShownOnceForMode<{ title: string; key: string; note?: string }>();
  return (
    <>
      <PageHeader title="API keys">
        <p className="lead">
          Keys call the /v1 API from your servers. New keys here are {mode} keys (ck_{mode}_…).
        </p>
      </PageHeader>
      {shown && (
        <SecretOnce label={shown.title} value={shown.key} onDone={() => setShown(null)}>
          {shown.note && <p className="hint">{shown.note}</p>}
        </SecretOnce>
      )}
      {readOnly ? (
        <OwnersAndAdminsOnly>Only owners and admins create, roll or revoke API keys.</OwnersAndAdminsOnly>
      ) : (
        <CreateKey onCreated={(key) => setShown({ title: `New API key “${key.name ?? key.prefix}”`, key: key.key })} />
      )}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <QueryResult
          query={keys}
          loading="Loading keys…"
          failed="Keys could not be loaded"
          empty={readOnly ? `No ${mode} keys yet.` : `No ${mode} keys yet. Create one above.`}
        >
          {(data) => (
            <Table columns={['Key', 'Scopes', 'Status', 'Created', 'Last used', ...(readOnly ? [] : ['Actions'])]}>
              {data.map((k) => (
                <KeyRow
                  key={k.id}
                  apiKey={k}
                  readOnly={readOnly}
                  onRolled={(rolled) =>
                    setShown({
                      title: `New API key for “${rolled.name ?? rolled.prefix}”`,
                      key: rolled.key,
                      note:
                        rolled.previous.status === 'expiring' && rolled.previous.expires_at
                          ? `The old key (${rolled.previous.prefix}…) keeps working until ${new Date(rolled.previous.expires_at).toLocaleString()}.`
                          : `The old key (${rolled.previous.prefix}…) no longer works.`,
                    })
                  }
                />
              ))}
            </Table>
          )}
        </QueryResult>
      </section>
    </>
  );
}
