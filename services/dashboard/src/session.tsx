import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, apiDownload, apiRequest, type Mode, type RequestOptions } from './api';

// The session token lives in sessionStorage: it survives a reload of this tab,
// not the tab itself, and no other tab or later visit reads it.
const TOKEN_KEY = 'cowrie.dashboard.session';
const MODE_KEY = 'cowrie.dashboard.mode';
// Who signed in, and whether they must first replace a one-time password (this tab only, like the token).
const EMAIL_KEY = 'cowrie.dashboard.email';
const CHANGE_KEY = 'cowrie.dashboard.password-change';

interface SessionState {
  token: string | null;
  mode: Mode;
  /** Why the last session ended without the user signing out (a 401). */
  endedBecause: string | null;
  /** The email the user signed in with (to mark them in the team list). */
  email: string | null;
  /** Signed in with a one-time password: nothing opens until they choose their own. */
  passwordChangeRequired: boolean;
}

interface SessionApi extends SessionState {
  signIn(token: string, user: { email: string | null; passwordChangeRequired: boolean }): void;
  /** Forgets the session here (the server side is POST /auth/logout). */
  forget(reason?: string): void;
  setMode(mode: Mode): void;
  /** A call with this session; a 401 ends it and returns to sign-in. */
  call<T>(method: string, path: string, options?: RequestOptions): Promise<{ data: T; meta: { request_id: string; next_cursor?: string | null } }>;
  /** A file (a CSV export) with this session; a 401 ends it as `call` does. */
  download(path: string): Promise<{ blob: Blob; filename: string }>;
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
  const [state, setState] = useState<SessionState>(() => ({
    token: stored(TOKEN_KEY),
    mode: stored(MODE_KEY) === 'test' ? 'test' : 'live',
    endedBecause: null,
    email: stored(EMAIL_KEY),
    passwordChangeRequired: stored(CHANGE_KEY) === 'yes',
  }));

  const forget = useCallback(
    (reason?: string) => {
      for (const key of [TOKEN_KEY, EMAIL_KEY, CHANGE_KEY]) store(key, null);
      queryClient.clear();
      setState((s) => ({ ...s, token: null, email: null, passwordChangeRequired: false, endedBecause: reason ?? null }));
    },
    [queryClient],
  );

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
        throw err;
      }
    };
    return {
      ...state,
      signIn(token, user) {
        store(TOKEN_KEY, token);
        store(EMAIL_KEY, user.email);
        store(CHANGE_KEY, user.passwordChangeRequired ? 'yes' : null);
        setState((s) => ({ ...s, token, endedBecause: null, ...user }));
      },
      forget,
      setMode(mode) {
        store(MODE_KEY, mode);
        setState((s) => ({ ...s, mode }));
      },
      async call<T>(method: string, path: string, options?: RequestOptions) {
        return endOn401(() => apiRequest<T>(state, method, path, options));
      },
      async download(path: string) {
        return endOn401(() => apiDownload(state, path));
      },
    };
  }, [state, forget]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
