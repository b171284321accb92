import { useEffect, useRef, useState, type FormEvent } from 'react';
import { newIdempotencyKey, type Schemas } from '../api';
import { useApiMutation, useApiQuery, useReadOnly } from '../queries';
import { useSession } from '../session';
import { Button, ConfirmButton, ErrorNote, PageHeader, QueryResult, SecretOnce, Table, Time } from '../ui';

type Member = Schemas['TeamMember'];
type Invited = Schemas['InvitedUser'] | Schemas['InvitedUserByEmail'];
type Role = Member['role'];

function InviteForm({ onInvited, onCancel }: { onInvited: (invited: Invited) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  // Idempotent: a retried submit answers the same user and one-time password instead of failing on the email.
  const invite = useApiMutation(
    'post',
    '/users',
    (idempotencyKey: string) => ({ body: { email, role }, params: { header: { 'Idempotency-Key': idempotencyKey } } }),
    ['/users'],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(newIdempotencyKey(), { onSuccess: onInvited });
  };
  return (
    <form className="card form" onSubmit={submit} aria-label="Invite a user">
      <h3>Invite a user</h3>
      <label htmlFor="invite-email">Email</label>
      <input id="invite-email" type="email" required autoFocus autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor="invite-role">Role</label>
      <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as 'admin' | 'member')}>
        <option value="member">member: uses the dashboard</option>
        <option value="admin">admin: also invites and removes users</option>
      </select>
      <ErrorNote error={invite.error} prefix="Not invited" />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={invite.isPending} busyLabel="Inviting…">
          Invite
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

/**
 * Removing a user, in a dialog that lists the API keys they made (a key may
 * run a production server): the remover chooses whether those still working
 * are revoked in the same step.
 */
function RemoveDialog({ m, onClose }: { m: Member; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const keys = useApiQuery('/users/{id}/api-keys', { params: { path: { id: String(m.id) } } });
  const [revoke, setRevoke] = useState(true);
  const working = (keys.data ?? []).filter((k) => k.status !== 'revoked');
  const remove = useApiMutation(
    'delete',
    '/users/{id}',
    () => ({ params: { path: { id: String(m.id) }, query: working.length > 0 && revoke ? { revoke_api_keys: 'true' } : {} } }),
    ['/users', '/api-keys'],
  );
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="card dialog"
      aria-labelledby={`remove-${m.id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        if (!remove.isPending) onClose();
      }}
    >
      <div className="form">
        <h2 id={`remove-${m.id}-title`}>Remove {m.email}?</h2>
        <p className="hint">They can no longer sign in, and every session of theirs ends now; invitations they made and that were not yet accepted end too.</p>
        <QueryResult query={keys} loading="Loading their API keys…" failed="Their API keys could not be loaded" empty="They made no API keys.">
          {(rows) => (
            <>
              <p>
                API keys they made: {working.length} working{rows.length > working.length ? `, ${rows.length - working.length} revoked` : ''}.
              </p>
              {working.length > 0 && (
                <>
                  <ul className="key-list" aria-label={`API keys of ${m.email}`}>
                    {working.map((k) => (
                      <li key={k.id}>
                        {k.name ?? <span className="muted">(no name)</span>} <span className="mono small muted">{k.prefix}…</span>{' '}
                        <span className="muted small">({k.mode})</span>
                        {k.last_used_at && (
                          <span className="muted small">
                            {' '}
                            last used <Time value={k.last_used_at} />
                          </span>
                        )}
                      </li>
                    ))}
                  </ul>
                  <label className="check">
                    <input type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} /> Also revoke their {working.length} working key
                    {working.length === 1 ? '' : 's'} (a server using one stops working)
                  </label>
                </>
              )}
            </>
          )}
        </QueryResult>
        <ErrorNote error={remove.error} prefix="Not removed" />
        <div className="button-row">
          <Button
            variant="danger"
            busy={remove.isPending}
            busyLabel="Removing…"
            disabled={keys.isPending}
            onClick={() => remove.mutate(undefined, { onSuccess: onClose })}
          >
            Remove {m.email}
          </Button>
          <Button onClick={onClose} disabled={remove.isPending}>
            Cancel
          </Button>
        </div>
      </div>
    </dialog>
  );
}

/** A role to choose and a button to apply it (a step-up first when the session needs one). Owners offer every role; admins admin and member. */
function RoleControl({ m, iAmOwner }: { m: Member; iAmOwner: boolean }) {
  const [role, setRole] = useState<Role>(m.role);
  const change = useApiMutation('put', '/users/{id}/role', () => ({ params: { path: { id: String(m.id) } }, body: { role } }), ['/users']);
  const roles: Role[] = iAmOwner ? ['owner', 'admin', 'member'] : ['admin', 'member'];
  return (
    <span className="role-control">
      <select aria-label={`Role of ${m.email}`} value={role} onChange={(e) => setRole(e.target.value as Role)} disabled={change.isPending}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {role !== m.role && (
        <>
          <Button variant="primary" busy={change.isPending} busyLabel="Changing…" onClick={() => change.mutate()}>
            Change role
          </Button>
          {!change.isPending && <Button onClick={() => setRole(m.role)}>Cancel</Button>}
        </>
      )}
      <ErrorNote error={change.error} prefix="Role not changed" />
    </span>
  );
}

function MemberRow({ m, isMe, iAmOwner, iManage }: { m: Member; isMe: boolean; iAmOwner: boolean; iManage: boolean }) {
  // An invitation's expiry is judged as of when the row was first drawn (a render reads no clock).
  const [drawnAt] = useState(() => Date.now());
  const [removing, setRemoving] = useState(false);
  // An owner resets another user's second factor (a lost phone): they sign in with their password alone and enrol again.
  const reset = useApiMutation('delete', '/users/{id}/mfa', () => ({ params: { path: { id: String(m.id) } } }), ['/users']);
  const mayChangeRole = iManage && m.status === 'active' && !isMe && (iAmOwner || m.role !== 'owner');
  return (
    <tr>
      <td data-label="Email">
        <div>
          {m.email}
          {isMe && <span className="muted small"> (you)</span>}
        </div>
      </td>
      <td data-label="Role">{mayChangeRole ? <RoleControl key={m.role} m={m} iAmOwner={iAmOwner} /> : m.role}</td>
      <td data-label="Status">
        <div>
          <span className={`badge badge-${m.status === 'active' ? 'active' : 'revoked'}`}>{m.status}</span>
          {m.status === 'active' && m.password_change_required && (
            <div className="muted small">
              {m.one_time_password_expires_at && Date.parse(m.one_time_password_expires_at) <= drawnAt
                ? 'invitation expired: the one-time password no longer signs in'
                : 'has not chosen a password yet'}
            </div>
          )}
        </div>
      </td>
      <td data-label="Two-step">{m.mfa_enabled ? <span className="badge badge-active">on</span> : <span className="muted">off</span>}</td>
      <td data-label="Added">
        <Time value={m.created_at} />
      </td>
      <td data-label="Actions">
        <div className="actions">
          {iManage && m.status === 'active' && !isMe && (
            <Button variant="danger" onClick={() => setRemoving(true)}>
              Remove
            </Button>
          )}
          {removing && <RemoveDialog m={m} onClose={() => setRemoving(false)} />}
          {m.status === 'active' && !isMe && iAmOwner && m.mfa_enabled && (
            <ConfirmButton
              label="Reset two-step"
              confirmLabel={`Reset two-step sign-in of ${m.email}`}
              busy={reset.isPending}
              busyLabel="Resetting…"
              onConfirm={() => reset.mutate()}
            />
          )}
          <ErrorNote error={reset.error} prefix="Not reset" />
        </div>
      </td>
    </tr>
  );
}

/** The workspace's dashboard users: everyone sees them; owners and admins invite (a one-time password shown once) and remove. */
export function Team() {
  const { email } = useSession();
  const users = useApiQuery('/users');
  // A member reads the team; owners and admins invite (the lead says so).
  const readOnly = useReadOnly();
  const [inviting, setInviting] = useState(false);
  const [invited, setInvited] = useState<Invited | null>(null);
  const isMe = (m: Member) => !!email && m.email.toLowerCase() === email.toLowerCase();
  return (
    <>
      <PageHeader title="Team">
        <p className="lead">
          The people who sign in to this dashboard. Owners and admins invite and remove them and change their roles (only owners give or take the owner role);
          owners reset a lost second factor.
        </p>
      </PageHeader>
      {invited && 'one_time_password' in invited && (
        <SecretOnce label={`One-time password for ${invited.user.email}`} value={invited.one_time_password} onDone={() => setInvited(null)}>
          <p className="hint">Give it to them privately. They sign in with it and must then choose their own password.</p>
        </SecretOnce>
      )}
      {invited && 'invite' in invited && (
        <div className={`note ${invited.invite.email_sent ? 'note-info' : 'note-error'}`} role="status">
          {invited.invite.email_sent
            ? `We emailed ${invited.user.email} a link to choose their password; it works once, until ${new Date(invited.invite.expires_at).toLocaleString()}.`
            : `${invited.user.email} is invited, but the email did not go out. Ask them to use “Forgot password?” on the sign-in page with this email before ${new Date(invited.invite.expires_at).toLocaleString()}.`}{' '}
          <Button onClick={() => setInvited(null)}>Done</Button>
        </div>
      )}
      <section aria-labelledby="users-title">
        <div className="section-head">
          <h2 id="users-title">Users</h2>
          {!inviting && !readOnly && (
            <Button variant="primary" onClick={() => setInviting(true)}>
              Invite a user
            </Button>
          )}
        </div>
        {inviting && !readOnly && (
          <InviteForm
            onCancel={() => setInviting(false)}
            onInvited={(result) => {
              setInviting(false);
              setInvited(result);
            }}
          />
        )}
        <QueryResult query={users} loading="Loading users…" failed="Users could not be loaded" empty="No users.">
          {(rows) => (
            <Table columns={['Email', 'Role', 'Status', 'Two-step', 'Added', 'Actions']} caption="Users">
              {rows.map((m) => (
                <MemberRow
                  key={m.id}
                  m={m}
                  isMe={isMe(m)}
                  iAmOwner={rows.some((r) => isMe(r) && r.role === 'owner')}
                  iManage={rows.some((r) => isMe(r) && r.role !== 'member')}
                />
              ))}
            </Table>
          )}
        </QueryResult>
      </section>
    </>
  );
}
