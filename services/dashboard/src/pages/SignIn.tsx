import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { apiRequest, type Schemas } from '../api';
import { useSession } from '../session';
import { Button, ErrorNote } from '../ui';

export function SignIn() {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: async () =>
      (await apiRequest<Schemas['Session']>({ token: null, mode: session.mode }, 'POST', '/auth/login', { body: { email, password } })).data,
    onSuccess: (data) => session.signIn(data.token, { email: email.trim().toLowerCase(), passwordChangeRequired: data.password_change_required }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <p className="brand brand-large">Cowrie</p>
        <h1 id="signin-title">Sign in to your dashboard</h1>
        {session.endedBecause && (
          <p className="note note-info" role="status">
            You were signed out: {session.endedBecause}
          </p>
        )}
        <label htmlFor="signin-email">Email</label>
        <input id="signin-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        <label htmlFor="signin-password">Password</label>
        <input id="signin-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorNote error={login.error} />
        <Button type="submit" variant="primary" busy={login.isPending} busyLabel="Signing in…">
          Sign in
        </Button>
        <p className="hint">No account? An operator creates one with the CLI: npx cowrie user create.</p>
      </form>
    </main>
  );
}
