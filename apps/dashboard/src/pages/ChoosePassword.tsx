import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useSession } from '../session';
import { Button, ErrorNote } from '../ui';
import { NewPasswordFields, useTwoPasswords } from './SetPassword';

/**
 * The first screen of a user who signed in with the one-time password of
 * their invitation: every other page answers 403 until they choose their own.
 * The API ends every session of the user and answers a new one.
 */
export function ChoosePassword() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const next = useTwoPasswords();
  const change = useMutation({
    mutationFn: async () => (await session.call('post', '/auth/password', { body: { current_password: current, new_password: next.value } })).data,
    onSuccess: (data) =>
      session.signIn(data.token, {
        email: session.email,
        passwordChangeRequired: data.password_change_required,
        mfaEnrolmentRequired: data.mfa_enrolment_required,
      }),
  });
  const signOut = useMutation({
    mutationFn: () => session.call('post', '/auth/logout'),
    onSettled: () => session.forget(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (next.check()) change.mutate();
  };
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="password-title">
        <p className="brand brand-large">Cowrie</p>
        <h1 id="password-title">Choose a new password</h1>
        <p className="hint">You signed in with a one-time password. Choose your own to open the dashboard; it ends every other session of yours.</p>
        <label htmlFor="password-current">One-time password</label>
        <input
          id="password-current"
          type="password"
          autoComplete="current-password"
          required
          autoFocus
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
        <NewPasswordFields {...next.fields} />
        {next.mismatchNote}
        <ErrorNote error={change.error} prefix="Not changed" />
        <Button type="submit" variant="primary" busy={change.isPending} busyLabel="Saving…">
          Save and continue
        </Button>
        <Button onClick={() => signOut.mutate()} busy={signOut.isPending} busyLabel="Signing out…">
          Sign out
        </Button>
      </form>
    </main>
  );
}
