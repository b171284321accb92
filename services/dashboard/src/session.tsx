import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, apiDownload, apiRequest, type Mode, type RequestOptions } from './api';

// The session token lives in sessionStorage: it survives a reload of this tab,
// not the tab itself, and no other tab or later visit reads it.
const TOKEN_KEY = 'cowrie.dashboard.session';
const MODE_KEY = 'cowrie.dashboard.mode';

interface SessionState {
  token: string | null;
  mode: Mode;
  /** Why the last session ended without the user signing out (a 401). */
  endedBecause: string | null;
}

interface SessionApi extends SessionState {
  signIn(token: string): void;
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
  }));

  const forget = useCallback(
    (reason?: string) => {
      store(TOKEN_KEY, null);
      queryClient.clear();
      setState((s) => ({ ...s, token: null, endedBecause: reason ?? null }));
    },
    [queryClient],
  );

  const value = useMemo<SessionApi>(() => {
    const endOn401 = async <R,>(request: () => Promise<R>): Promise<R> => {
      try {
        return await request();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401 && state.token) forget(err.message);
        throw err;
      }
    };
    return {
      ...state,
      signIn(token) {
        store(TOKEN_KEY, token);
        setState((s) => ({ ...s, token, endedBecause: null }));
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
