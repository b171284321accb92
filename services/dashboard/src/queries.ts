import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RequestOptions } from './api';
import { useSession } from './session';

/** A GET of the session's mode; cached per mode and path. */
export function useApiQuery<T>(path: string) {
  const { call, mode } = useSession();
  return useQuery({ queryKey: [mode, path], queryFn: async () => (await call<T>('GET', path)).data });
}

/** A page of a cursor-paged read: its rows and the cursor of the next (older) page, null on the last. */
export function useApiPage<T>(path: string) {
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
