import { useState, type FormEvent } from 'react';
import type { Schemas } from '../api';
import { QrCode } from '../QrCode';
import { useApiMutation, useApiQuery } from '../queries';
import { Button, CopyButton, ErrorNote, PageHeader, QueryResult } from '../ui';

type Enrolment = Schemas['TotpEnrolment'];

/** The secret in groups of four, easier to type into an app by hand. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/**
 * Turning two-step sign-in on: a new secret (its QR code, drawn here, and the
 * secret to type), a first code to confirm it, then the ten recovery codes,
 * shown once. `onStarted` runs when a new secret is shown, `onEnrolled` when
 * the user says they stored the codes.
 */
export function TotpEnrolment({ onStarted, onEnrolled }: { onStarted?: () => void; onEnrolled: () => void }) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const start = useApiMutation('post', '/auth/mfa/totp', () => undefined);
  // The status is read again as soon as the code is confirmed (another visit to Security says on); the codes stay on screen until stored.
  const confirm = useApiMutation('post', '/auth/mfa/totp/confirm', () => ({ body: { code: code.trim() } }), ['/auth/mfa']);
  if (recoveryCodes) {
    return (
      <section className="card secret" aria-labelledby="recovery-title">
        <h2 id="recovery-title">Your recovery codes</h2>
        <p className="hint">
          Two-step sign-in is on. Store these codes somewhere safe: each signs you in once if you lose your device. They are shown this once and cannot be read
          again.
        </p>
        <ol className="recovery-codes mono" aria-label="Recovery codes">
          {recoveryCodes.map((c) => (
            <li key={c} data-secret>
              {c}
            </li>
          ))}
        </ol>
        <div className="button-row">
          <CopyButton value={recoveryCodes.join('\n')} label="Copy the codes" />
          <Button variant="primary" onClick={onEnrolled}>
            I have stored them
          </Button>
        </div>
      </section>
    );
  }
  if (!enrolment) {
    return (
      <section className="card form" aria-labelledby="enrol-title">
        <h2 id="enrol-title">Turn on two-step sign-in</h2>
        <p className="hint">Sign-in then asks for a code from an authenticator app on your phone as well as your password.</p>
        <ErrorNote error={start.error} prefix="Could not start" />
        <Button
          variant="primary"
          busy={start.isPending}
          busyLabel="Starting…"
          onClick={() =>
            start.mutate(undefined, {
              onSuccess: (started) => {
                setEnrolment(started);
                onStarted?.();
              },
            })
          }
        >
          Set up an authenticator app
        </Button>
      </section>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate(undefined, { onSuccess: (data) => setRecoveryCodes(data.recovery_codes) });
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="scan-title">
      <h2 id="scan-title">Scan the code with your authenticator app</h2>
      <div className="enrol">
        <QrCode text={enrolment.otpauth_url} label="QR code of the two-step sign-in secret for Cowrie" />
        <div>
          <p className="hint">Or type this key into the app (time-based, 6 digits):</p>
          <p className="mono secret-key" data-secret>
            {grouped(enrolment.secret)}
          </p>
        </div>
      </div>
      <label htmlFor="enrol-code">The 6-digit code the app shows</label>
      <input id="enrol-code" autoComplete="one-time-code" inputMode="numeric" required value={code} onChange={(e) => setCode(e.target.value)} />
      <ErrorNote error={confirm.error} prefix="Not turned on" />
      <Button type="submit" variant="primary" busy={confirm.isPending} busyLabel="Checking…">
        Turn on
      </Button>
    </form>
  );
}

function TurnOff() {
  const [code, setCode] = useState('');
  const disable = useApiMutation('post', '/auth/mfa/totp/disable', () => ({ body: { code: code.trim() } }), ['/auth/mfa']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    disable.mutate(undefined, { onSuccess: () => setCode('') });
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="turn-off-title">
      <h2 id="turn-off-title">Turn two-step sign-in off</h2>
      <label htmlFor="turn-off-code">A current code (or a recovery code)</label>
      <input id="turn-off-code" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
      <ErrorNote error={disable.error} prefix="Still on" />
      <Button type="submit" variant="danger" busy={disable.isPending} busyLabel="Turning off…">
        Turn off
      </Button>
    </form>
  );
}

/** The signed-in user's own sign-in security: two-step sign-in on or off. */
export function Security() {
  const status = useApiQuery('/auth/mfa');
  // From "Set up" until the recovery codes are stored, the enrolment stays on screen whatever the status it refreshes says by then
  // (on, or a failed read): the codes are shown this once.
  const [enrolling, setEnrolling] = useState(false);
  return (
    <>
      <PageHeader title="Security">
        <p className="lead">Two-step sign-in: a code from an authenticator app as well as your password.</p>
      </PageHeader>
      {enrolling || status.data?.totp_enabled === false ? (
        <TotpEnrolment
          onStarted={() => setEnrolling(true)}
          onEnrolled={() => {
            setEnrolling(false);
            void status.refetch();
          }}
        />
      ) : (
        <QueryResult query={status} loading="Loading…" failed="Could not be loaded">
          {(s) => (
            <>
              <p className="note note-ok" role="status">
                Two-step sign-in is on. {s.recovery_codes_remaining} recovery code{s.recovery_codes_remaining === 1 ? '' : 's'} left.
              </p>
              <TurnOff />
            </>
          )}
        </QueryResult>
      )}
    </>
  );
}
