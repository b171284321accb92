import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, apiDownload, apiRequest, type Call, type ExportPath, type ExportQuery, type Mode } from './api';
import { StepUpDialog, type StepUpWith } from './StepUpDialog';

// The session token lives in sessionStorage: it survives a reload of this tab,
// not the tab itself, and no later visit reads it. A tab opened while another
// tab of this browser is signed in (a link opened in a new tab) asks the open
// tabs for the session over a BroadcastChannel (same origin, same browser
// only) and joins it; signing out in one tab signs out all of them. Once every
// tab is closed the session is gone, as before.
const TOKEN_KEY = 'cowrie.dashboard.session';
const MODE_KEY = 'cowrie.dashboard.mode';
// Who signed in, and whether they must first replace a one-time password (this tab only, like the token).
const EMAIL_KEY = 'cowrie.dashboard.email';
const CHANGE_KEY = 'cowrie.dashboard.password-change';
const ENROL_KEY = 'cowrie.dashboard.mfa-enrolment';

/** The session's tabs: what a new tab asks, what a signed-in tab answers, and a sign-out for all. */
const TABS_CHANNEL = 'cowrie.dashboard.session';
type TabMessage =
  | { kind: 'ask' }
  | { kind: 'share'; token: string; email: string | null; passwordChangeRequired: boolean; mfaEnrolmentRequired: boolean; mode: Mode }
  | { kind: 'signed-out' };
/** How long a new tab waits for a signed-in tab to answer before it shows the sign-in page. */
const JOIN_WAIT_MS = 400;

function openTabsChannel(): BroadcastChannel | null {
  try {
    return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(TABS_CHANNEL);
  } catch {
    return null;
  }
}

interface SessionState {
  token: string | null;
  /** A tab without a session of its own, asking the other tabs for theirs (nothing is shown meanwhile). */
  joining: boolean;
  mode: Mode;
  /** Why the last session ended without the user signing out (a 401). */
  endedBecause: string | null;
  /** The email the user signed in with (to mark them in the team list). */
  email: string | null;
  /** Signed in with a one-time password: nothing opens until they choose their own. */
  passwordChangeRequired: boolean;
  /** An owner or admin without a second factor where one is required: nothing opens until they turn it on. */
  mfaEnrolmentRequired: boolean;
}

/** What sign-in learnt of the user. */
interface SignedInUser {
  email: string | null;
  passwordChangeRequired: boolean;
  mfaEnrolmentRequired: boolean;
}

interface SessionApi extends SessionState {
  signIn(token: string, user: SignedInUser): void;
  /** The second factor was turned on: the pages open. */
  enrolled(): void;
  /** Forgets the session here (the server side is POST /auth/logout). */
  forget(reason?: string): void;
  setMode(mode: Mode): void;
  /**
   * A call with this session; a 401 ends it and returns to sign-in. A guarded
   * change answered 403 step_up_required opens the step-up prompt, and once
   * the user confirmed it is them, is sent again as it was (the same body and
   * Idempotency-Key); dismissing the prompt fails the call.
   */
  call: Call;
  /** A file (a CSV export) with this session; a 401 ends it as `call` does. */
  download<P extends ExportPath>(path: P, query: ExportQuery<P>): Promise<{ blob: Blob; filename: string }>;
}

const SessionContext = createContext<SessionApi | null>(null);

function stored(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key: string, value: string | null) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode): the session lasts as long as the page.
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [tabs] = useState(openTabsChannel);
  const [state, setState] = useState<SessionState>(() => ({
    token: stored(TOKEN_KEY),
    joining: !stored(TOKEN_KEY) && tabs !== null,
    mode: stored(MODE_KEY) === 'test' ? 'test' : 'live',
    endedBecause: null,
    email: stored(EMAIL_KEY),
    passwordChangeRequired: stored(CHANGE_KEY) === 'yes',
    mfaEnrolmentRequired: stored(ENROL_KEY) === 'yes',
  }));
  // The open step-up prompt, and how the call that opened it goes on.
  const [stepUp, setStepUp] = useState<{ with: StepUpWith; done: (confirmed: boolean) => void } | null>(null);

  const forgetHere = useCallback(
    (reason?: string) => {
      for (const key of [TOKEN_KEY, EMAIL_KEY, CHANGE_KEY, ENROL_KEY]) store(key, null);
      queryClient.clear();
      setStepUp((open) => {
        open?.done(false);
        return null;
      });
      setState((s) => ({ ...s, token: null, email: null, passwordChangeRequired: false, mfaEnrolmentRequired: false, endedBecause: reason ?? null }));
    },
    [queryClient],
  );
  // Ending the session here ends it in the other tabs too (they would meet a 401 at their next call).
  const forget = useCallback(
    (reason?: string) => {
      forgetHere(reason);
      tabs?.postMessage({ kind: 'signed-out' } satisfies TabMessage);
    },
    [forgetHere, tabs],
  );

  // A signed-in tab answers a new tab's ask; a new tab takes the first answer, or gives up after JOIN_WAIT_MS.
  useEffect(() => {
    if (!tabs) return;
    const onMessage = (event: MessageEvent<TabMessage>) => {
      const message = event.data;
      if (message.kind === 'ask') {
        const token = stored(TOKEN_KEY);
        if (token)
          tabs.postMessage({
            kind: 'share',
            token,
            email: stored(EMAIL_KEY),
            passwordChangeRequired: stored(CHANGE_KEY) === 'yes',
            mfaEnrolmentRequired: stored(ENROL_KEY) === 'yes',
            mode: stored(MODE_KEY) === 'test' ? 'test' : 'live',
          } satisfies TabMessage);
      } else if (message.kind === 'share') {
        if (stored(TOKEN_KEY)) return;
        store(TOKEN_KEY, message.token);
        store(EMAIL_KEY, message.email);
        store(CHANGE_KEY, message.passwordChangeRequired ? 'yes' : null);
        store(ENROL_KEY, message.mfaEnrolmentRequired ? 'yes' : null);
        store(MODE_KEY, message.mode);
        const { token, email, passwordChangeRequired, mfaEnrolmentRequired, mode } = message;
        setState((s) => ({ ...s, token, email, passwordChangeRequired, mfaEnrolmentRequired, mode, joining: false, endedBecause: null }));
      } else if (message.kind === 'signed-out') {
        if (stored(TOKEN_KEY)) forgetHere();
      }
    };
    tabs.addEventListener('message', onMessage);
    return () => tabs.removeEventListener('message', onMessage);
  }, [tabs, forgetHere]);
  useEffect(() => {
    if (!tabs || !state.joining) return;
    tabs.postMessage({ kind: 'ask' } satisfies TabMessage);
    const gaveUp = setTimeout(() => setState((s) => ({ ...s, joining: false })), JOIN_WAIT_MS);
    return () => clearTimeout(gaveUp);
  }, [tabs, state.joining]);

  const value = useMemo<SessionApi>(() => {
    const endOn401 = async <R,>(request: () => Promise<R>): Promise<R> => {
      try {
        return await request();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401 && state.token) forget(err.message);
        // A one-time password not yet replaced (another tab signed in with it): choose a new one first.
        if (err instanceof ApiError && err.details.reason === 'password_change_required') {
          store(CHANGE_KEY, 'yes');
          setState((s) => ({ ...s, passwordChangeRequired: true }));
        }
        // An owner or admin whose second factor was reset (in another tab, or by an owner): turn it on first.
        if (err instanceof ApiError && err.details.reason === 'mfa_enrolment_required') {
          store(ENROL_KEY, 'yes');
          setState((s) => ({ ...s, mfaEnrolmentRequired: true }));
        }
        throw err;
      }
    };
    /** Sends `request`; when it needs a fresh step-up, asks for one and sends it again, once. */
    const withStepUp = async <R,>(request: () => Promise<R>): Promise<R> => {
      try {
        return await request();
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 403 && err.details.reason === 'step_up_required')) throw err;
        const confirmed = await new Promise<boolean>((done) => setStepUp({ with: err.details.step_up_with === 'code' ? 'code' : 'password', done }));
        if (!confirmed) throw new ApiError(403, 'insufficient_scope', 'Not done: it needs you to confirm it is you first.', err.details);
        return request();
      }
    };
    const call: Call = async (method, path, ...init) => endOn401(() => withStepUp(() => apiRequest(state, method, path, ...init)));
    return {
      ...state,
      signIn(token, user) {
        store(TOKEN_KEY, token);
        store(EMAIL_KEY, user.email);
        store(CHANGE_KEY, user.passwordChangeRequired ? 'yes' : null);
        store(ENROL_KEY, user.mfaEnrolmentRequired ? 'yes' : null);
        setState((s) => ({ ...s, token, endedBecause: null, ...user }));
      },
      enrolled() {
        store(ENROL_KEY, null);
        setState((s) => ({ ...s, mfaEnrolmentRequired: false }));
      },
      forget,
      setMode(mode) {
        store(MODE_KEY, mode);
        setState((s) => ({ ...s, mode }));
      },
      call,
      async download(path, query) {
        return endOn401(() => apiDownload(state, path, query));
      },
    };
  }, [state, forget]);
  return (
    <SessionContext.Provider value={value}>
      {children}
      {stepUp && state.token && (
        <StepUpDialog
          stepUpWith={stepUp.with}
          send={async (body) => {
            try {
              await apiRequest(state, 'post', '/auth/step-up', { body });
            } catch (err) {
              if (err instanceof ApiError && err.status === 401) forget(err.message);
              throw err;
            }
          }}
          onClose={(confirmed) => {
            stepUp.done(confirmed);
            setStepUp(null);
          }}
        />
      )}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/**
 * A secret shown once on a page (a new API key, an endpoint's signing secret)
 * belongs to the side, live or test, it was made on: switching sides drops
 * it, and switching back does not show it again.
 */
export function useShownOnceForMode<T>(): [T | null, (value: T | null) => void] {
  const { mode } = useSession();
  const [shown, setShown] = useState<T | null>(null);
  const [shownMode, setShownMode] = useState(mode);
  if (shownMode !== mode) {
    setShownMode(mode);
    setShown(null);
  }
  return [shownMode === mode ? shown : null, setShown];
}
