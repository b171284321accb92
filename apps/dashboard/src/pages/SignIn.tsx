import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'wouter';
import { apiRequest, type Schemas } from '../api';
import { useSession } from '../session';
import { Button, ErrorNote } from '../ui';

type Session = Schemas['Session'];

/**
 * Sign-in: the email and password, then, for a user with two-step sign-in,
 * a code of their authenticator app (or a recovery code) with the challenge
 * the first step answered.
 */
export function SignIn() {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string | null>(null);
  const signedIn = (data: Session) =>
    session.signIn(data.token, {
      email: email.trim().toLowerCase(),
      passwordChangeRequired: data.password_change_required,
      mfaEnrolmentRequired: data.mfa_enrolment_required,
    });
  const login = useMutation({
    mutationFn: async () => (await apiRequest({ token: null, mode: session.mode }, 'post', '/auth/login', { body: { email, password } })).data,
    onSuccess: (data) => {
      if (data.mfa_required) setChallenge(data.challenge);
      else signedIn(data);
    },
  });
  if (challenge) return <CodeStep challenge={challenge} onSignedIn={signedIn} onRestart={() => setChallenge(null)} />;
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
        <Link href="/forgot-password">Forgot password?</Link>
        <p className="hint">No account? An operator creates one with the CLI: npx cowrie user create.</p>
      </form>
    </main>
  );
}

/** The second step: a code for the challenge (valid 5 minutes; a wrong code may be tried again). */
function CodeStep({ challenge, onSignedIn, onRestart }: { challenge: string; onSignedIn: (data: Session) => void; onRestart: () => void }) {
  const session = useSession();
  const [code, setCode] = useState('');
  const verify = useMutation({
    mutationFn: async () => (await apiRequest({ token: null, mode: session.mode }, 'post', '/auth/login/mfa', { body: { challenge, code: code.trim() } })).data,
    onSuccess: onSignedIn,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="code-title">
        <p className="brand brand-large">Cowrie</p>
        <h1 id="code-title">Two-step sign-in</h1>
        <p className="hint">Enter the 6-digit code your authenticator app shows for Cowrie. Lost the device? Enter one of your recovery codes instead.</p>
        <label htmlFor="signin-code">Code</label>
        <input id="signin-code" autoComplete="one-time-code" required autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
        <ErrorNote error={verify.error} />
        <Button type="submit" variant="primary" busy={verify.isPending} busyLabel="Checking…">
          Sign in
        </Button>
        <Button onClick={onRestart}>Start again</Button>
      </form>
    </main>
  );
}
