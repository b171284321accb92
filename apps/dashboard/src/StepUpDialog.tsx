import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Button, ErrorNote } from './ui';

/** What the user confirms it is them with: a code of their second factor, or (without one) their password. */
export type StepUpWith = 'code' | 'password';

/**
 * The step-up prompt: a guarded change (a payout, an API key, an invitation, a
 * webhook endpoint, URL or secret) was refused because the session has not proved its
 * user recently (403 step_up_required). The user enters a code or their
 * password (POST /auth/step-up); the change is then sent again as it was.
 * Escape or Cancel leaves it undone.
 */
export function StepUpDialog({
  stepUpWith,
  send,
  onClose,
}: {
  stepUpWith: StepUpWith;
  send: (body: { code: string } | { password: string }) => Promise<void>;
  onClose: (confirmed: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await send(stepUpWith === 'code' ? { code: value.trim() } : { password: value });
      onClose(true);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const code = stepUpWith === 'code';
  return (
    <dialog
      ref={dialog}
      className="card dialog"
      aria-labelledby="step-up-title"
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose(false);
      }}
    >
      <form className="form" onSubmit={(e) => void submit(e)}>
        <h2 id="step-up-title">Confirm it is you</h2>
        <p className="hint">
          {code
            ? 'Moving money, making keys and changing the team or webhooks needs a fresh code. Enter the code of your authenticator app (or a recovery code); then it is done.'
            : 'Moving money, making keys and changing the team or webhooks needs your password again. Enter it; then it is done.'}
        </p>
        <label htmlFor="step-up-value">{code ? 'Two-step code' : 'Password'}</label>
        <input
          id="step-up-value"
          type={code ? 'text' : 'password'}
          autoComplete={code ? 'one-time-code' : 'current-password'}
          required
          autoFocus
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <ErrorNote error={error} prefix="Not confirmed" />
        <div className="button-row">
          <Button type="submit" variant="primary" busy={busy} busyLabel="Confirming…">
            Confirm
          </Button>
          <Button onClick={() => onClose(false)} disabled={busy}>
            Cancel
          </Button>
        </div>
      </form>
    </dialog>
  );
}
