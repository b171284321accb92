import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RequestOptions, Schemas } from './api';
import { useSession } from './session';

/** A GET of the session's mode; cached per mode and path. */
export function useApiQuery<T>(path: string) {
  const { call, mode } = useSession();
  return useQuery({ queryKey: [mode, path], queryFn: async () => (await call<T>('GET', path)).data });
}

/** A page of a cursor-paged read: its rows and the cursor of the next (older) page, null on the last. */
function useApiPage<T>(path: string) {
  const { call, mode } = useSession();
  return useQuery({
    // Its own key: the same path read by useApiQuery caches the rows alone.
    queryKey: [mode, path, 'page'],
    queryFn: async () => {
      const page = await call<T[]>('GET', path);
      return { items: page.data, nextCursor: page.meta.next_cursor ?? null };
    },
    placeholderData: keepPreviousData,
  });
}

/**
 * A write; on success the reads whose path starts with one of `invalidates`
 * are fetched again.
 */
export function useApiMutation<T, V = void>(request: (vars: V) => { method: string; path: string } & RequestOptions, invalidates: string[] = []) {
  const { call, mode } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (vars: V) => {
      const { method, path, ...options } = request(vars);
      return (await call<T>(method, path, options)).data;
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({
        predicate: (query) => query.queryKey[0] === mode && invalidates.some((prefix) => String(query.queryKey[1]).startsWith(prefix)),
      });
    },
  });
}

/**
 * A cursor-paged list of `base` with `params` (its filters), a page at a time:
 * the cursors of the pages before are kept to go back, and other filters start
 * again at the first page. `pager` is what the Pager shows.
 */
export function usePagedList<T>(base: string, params: URLSearchParams) {
  const list = params.size ? `${base}?${params}` : base;
  const [state, setState] = useState<{ list: string; cursors: string[] }>({ list, cursors: [] });
  const cursors = state.list === list ? state.cursors : [];
  const cursor = cursors.at(-1);
  const page = useApiPage<T>(cursor ? `${list}${params.size ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : list);
  const next = page.data?.nextCursor;
  const pager = {
    page: cursors.length + 1,
    onNewer: cursors.length === 0 || page.isFetching ? undefined : () => setState({ list, cursors: cursors.slice(0, -1) }),
    onOlder: next ? () => setState({ list, cursors: [...cursors, next] }) : undefined,
    loadingOlder: page.isFetching && page.isPlaceholderData,
  };
  return { page, pager, rows: { isPending: page.isPending, isError: page.isError, error: page.error, data: page.data?.items } };
}

/** The signed-in user's role (from the team list), or null while it is not known. */
export function useMyRole(): Schemas['TeamMember']['role'] | null {
  const { email } = useSession();
  const users = useApiQuery<Schemas['TeamMember'][]>('/users');
  const me = users.data?.find((u) => !!email && u.email.toLowerCase() === email.toLowerCase());
  return me?.role ?? null;
}
