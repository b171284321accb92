import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'wouter';
import { apiRequest } from '../api';
import { useSession } from '../session';
import { Button, ErrorNote } from '../ui';

/**
 * A new password, typed twice, under the API's rule (12 characters or more,
 * not a common or breached one): the fields of every page that chooses one
 * (a one-time password's replacement, a reset link, an invitation link).
 */
export function NewPasswordFields({
  value,
  onChange,
  repeat,
  onRepeat,
}: {
  value: string;
  onChange: (v: string) => void;
  repeat: string;
  onRepeat: (v: string) => void;
}) {
  return (
    <>
      <label htmlFor="password-new">New password</label>
      <input
        id="password-new"
        type="password"
        autoComplete="new-password"
        required
        minLength={12}
        aria-describedby="password-rule"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <p className="hint" id="password-rule">
        At least 12 characters, and not a common or breached password (a few unrelated words make a good one).
      </p>
      <label htmlFor="password-repeat">New password again</label>
      <input id="password-repeat" type="password" autoComplete="new-password" required value={repeat} onChange={(e) => onRepeat(e.target.value)} />
    </>
  );
}

/** Whether the two typed passwords match, shown once a submit found they differ. */
export function useTwoPasswords() {
  const [value, setValue] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  return {
    fields: { value, onChange: setValue, repeat, onRepeat: setRepeat },
    value,
    /** On submit: true when both match (else the mismatch note shows). */
    check: () => {
      setMismatch(value !== repeat);
      return value === repeat;
    },
    mismatchNote: mismatch ? (
      <p className="note note-error" role="alert">
        The two new passwords differ.
      </p>
    ) : null,
  };
}

/** The token of the link that opened the page, taken out of the address bar (and so out of the history) at once. */
function useLinkToken(): string | null {
  const [token] = useState(() => {
    const found = new URLSearchParams(window.location.search).get('token');
    if (found) window.history.replaceState(window.history.state, '', window.location.pathname);
    return found;
  });
  return token;
}

/**
 * The page an emailed link opens: a password reset (/reset-password) or an
 * invitation (/accept-invitation). The new password is set with the link's
 * token; the API then ends every session of the user, so the page forgets any
 * here and sends them to sign in.
 */
export function SetPasswordWithLink({ purpose }: { purpose: 'reset' | 'invitation' }) {
  const session = useSession();
  const token = useLinkToken();
  const password = useTwoPasswords();
  const set = useMutation({
    mutationFn: async () =>
      (
        await apiRequest({ token: null, mode: session.mode }, 'post', '/auth/password-reset/confirm', {
          // No token: the page shows no form (below), so this sends none.
          body: { token: token ?? '', password: password.value },
        })
      ).data,
    onSuccess: () => {
      if (session.token) session.forget();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password.check()) set.mutate();
  };
  const title = purpose === 'reset' ? 'Choose a new password' : 'Welcome: choose your password';
  if (set.data) {
    return (
      <main className="signin">
        <div className="card signin-card" role="status" aria-labelledby="set-title">
          <p className="brand brand-large">Cowrie</p>
          <h1 id="set-title">Password set</h1>
          <p>
            Sign in as <strong>{set.data.email}</strong> with your new password.
            {purpose === 'reset' && ' Every session of yours has ended.'}
          </p>
          <Link href="/" className="button button-primary">
            Sign in
          </Link>
        </div>
      </main>
    );
  }
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="set-title">
        <p className="brand brand-large">Cowrie</p>
        <h1 id="set-title">{title}</h1>
        {!token ? (
          <p className="note note-error" role="alert">
            This page opens from the link in your email; the link is incomplete. Ask for a new one.
          </p>
        ) : (
          <>
            <p className="hint">
              {purpose === 'reset'
                ? 'The link works once, for 30 minutes. Choosing a password signs you out everywhere.'
                : 'You were invited to this dashboard. The link works once, for 72 hours.'}
            </p>
            <NewPasswordFields {...password.fields} />
            {password.mismatchNote}
            <ErrorNote error={set.error} prefix="Not set" />
            <Button type="submit" variant="primary" busy={set.isPending} busyLabel="Saving…">
              Set password
            </Button>
          </>
        )}
        <Link href="/forgot-password">Ask for a new link</Link>
      </form>
    </main>
  );
}

/** "Forgot password?": an email, then the same confirmation whether or not it has an account. */
export function ForgotPassword() {
  const session = useSession();
  const [email, setEmail] = useState('');
  const ask = useMutation({
    mutationFn: async () => (await apiRequest({ token: null, mode: session.mode }, 'post', '/auth/password-reset', { body: { email } })).data,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate();
  };
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="forgot-title">
        <p className="brand brand-large">Cowrie</p>
        <h1 id="forgot-title">Reset your password</h1>
        {ask.isSuccess ? (
          <p className="note note-info" role="status">
            If an account signs in with {email.trim().toLowerCase()}, we have sent it a link to choose a new password. The link works once, for 30 minutes.
            Nothing there? Check the spam folder, or ask again in a few minutes.
          </p>
        ) : (
          <>
            <p className="hint">Enter the email you sign in with; we send a link to choose a new password.</p>
            <label htmlFor="forgot-email">Email</label>
            <input id="forgot-email" type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
            <ErrorNote error={ask.error} />
            <Button type="submit" variant="primary" busy={ask.isPending} busyLabel="Sending…">
              Send the link
            </Button>
          </>
        )}
        <Link href="/">Back to sign in</Link>
      </form>
    </main>
  );
}
