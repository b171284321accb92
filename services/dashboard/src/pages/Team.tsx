import { useState, type FormEvent } from 'react';
import { newIdempotencyKey, type Schemas } from '../api';
import { useApiMutation, useApiQuery } from '../queries';
import { useSession } from '../session';
import { Button, ConfirmButton, ErrorNote, PageHeader, QueryResult, SecretOnce, Table, Time } from '../ui';

type Member = Schemas['TeamMember'];
type Invited = Schemas['InvitedUser'];

function InviteForm({ onInvited, onCancel }: { onInvited: (invited: Invited) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  // Idempotent: a retried submit answers the same user and one-time password instead of failing on the email.
  const invite = useApiMutation<Invited, string>((idempotencyKey) => ({ method: 'POST', path: '/users', body: { email, role }, idempotencyKey }), ['/users']);
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

function MemberRow({ m, isMe, iAmOwner }: { m: Member; isMe: boolean; iAmOwner: boolean }) {
  const remove = useApiMutation<unknown>(() => ({ method: 'DELETE', path: `/users/${m.id}` }), ['/users']);
  // An owner resets another user's second factor (a lost phone): they sign in with their password alone and enrol again.
  const reset = useApiMutation<Member>(() => ({ method: 'DELETE', path: `/users/${m.id}/mfa` }), ['/users']);
  return (
    <tr>
      <td data-label="Email">
        <div>
          {m.email}
          {isMe && <span className="muted small"> (you)</span>}
        </div>
      </td>
      <td data-label="Role">{m.role}</td>
      <td data-label="Status">
        <div>
          <span className={`badge badge-${m.status === 'active' ? 'active' : 'revoked'}`}>{m.status}</span>
          {m.status === 'active' && m.password_change_required && (
            <div className="muted small">
              {m.one_time_password_expires_at && Date.parse(m.one_time_password_expires_at) <= Date.now()
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
          {m.status === 'active' && !isMe && (
            <ConfirmButton label="Remove" confirmLabel={`Remove ${m.email}`} busy={remove.isPending} busyLabel="Removing…" onConfirm={() => remove.mutate()} />
          )}
          {m.status === 'active' && !isMe && iAmOwner && m.mfa_enabled && (
            <ConfirmButton
              label="Reset two-step"
              confirmLabel={`Reset two-step sign-in of ${m.email}`}
              busy={reset.isPending}
              busyLabel="Resetting…"
              onConfirm={() => reset.mutate()}
            />
          )}
          <ErrorNote error={remove.error} prefix="Not removed" />
          <ErrorNote error={reset.error} prefix="Not reset" />
        </div>
      </td>
    </tr>
  );
}

/** The workspace's dashboard users: everyone sees them; owners and admins invite (a one-time password shown once) and remove. */
export function Team() {
  const { email } = useSession();
  const users = useApiQuery<Member[]>('/users');
  const [inviting, setInviting] = useState(false);
  const [invited, setInvited] = useState<Invited | null>(null);
  const isMe = (m: Member) => !!email && m.email.toLowerCase() === email.toLowerCase();
  return (
    <>
      <PageHeader title="Team">
        <p className="lead">The people who sign in to this dashboard. Owners and admins invite and remove them; owners reset a lost second factor.</p>
      </PageHeader>
      {invited && (
        <SecretOnce label={`One-time password for ${invited.user.email}`} value={invited.one_time_password} onDone={() => setInvited(null)}>
          <p className="hint">Give it to them privately. They sign in with it and must then choose their own password.</p>
        </SecretOnce>
      )}
      <section aria-labelledby="users-title">
        <div className="section-head">
          <h2 id="users-title">Users</h2>
          {!inviting && (
            <Button variant="primary" onClick={() => setInviting(true)}>
              Invite a user
            </Button>
          )}
        </div>
        {inviting && (
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
                <MemberRow key={m.id} m={m} isMe={isMe(m)} iAmOwner={rows.some((r) => isMe(r) && r.role === 'owner')} />
              ))}
            </Table>
          )}
        </QueryResult>
      </section>
    </>
  );
}
