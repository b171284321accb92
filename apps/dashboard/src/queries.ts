import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Call, DataOf, InitArgs, InitOf, Method, PagedPath, PathOf, Schemas } from './api';
import { useAddress } from './address';
import { useSession } from './session';

/**
 * A GET of the session's mode, typed from the API document: `path` is one of
 * its paths, `init` its parameters, the data its answer's. Cached per mode,
 * path and parameters.
 */
export function useApiQuery<P extends PathOf<'get'>>(path: P, ...[init]: InitArgs<'get', P>) {
  const { call, mode } = useSession();
  return useQuery({ queryKey: [mode, path, init], queryFn: () => dataOf<'get', P>(call, 'get', path, init) });
}

/**
 * The `data` of a call. Its own function: inside a hook's options, TypeScript
 * would check the call against every path of the document at once.
 */
async function dataOf<M extends Method, P extends PathOf<M>>(call: Call, method: M, path: P, init: InitOf<M, P> | undefined): Promise<DataOf<M, P>> {
  // `init` was checked against `path` by the hook's signature, and the answer is what Call says
  // `path` answers: here both are type parameters, which TypeScript cannot relate to Call's.
  const send = call as (method: Method, path: string, init?: unknown) => Promise<{ data: unknown }>;
  return (await send(method, path, init)).data as DataOf<M, P>;
}

/** The query parameters of a paged list (what `init.params.query` of its path holds). */
type QueryOf<P extends PagedPath> = NonNullable<NonNullable<NonNullable<InitOf<'get', P>>['params']>['query']>;

/** A page of `path`: its rows and the cursor of the next page (dataOf says why it is its own function). */
async function pageOf<P extends PagedPath>(call: Call, path: P, query: QueryOf<P>): Promise<{ items: DataOf<'get', P>; nextCursor: string | null }> {
  const send = call as (method: 'get', path: string, init: unknown) => Promise<{ data: unknown; meta: Schemas['PageMeta'] }>;
  const page = await send('get', path, { params: { query } });
  return { items: page.data as DataOf<'get', P>, nextCursor: page.meta.next_cursor };
}

/** A page of a cursor-paged read: its rows and the cursor of the next (older) page, null on the last. */
function useApiPage<P extends PagedPath>(path: P, query: QueryOf<P>) {
  const { call, mode } = useSession();
  return useQuery({
    // Its own key: the same path read by useApiQuery caches the rows alone.
    queryKey: [mode, path, query, 'page'],
    queryFn: () => pageOf(call, path, query),
    placeholderData: keepPreviousData,
  });
}

/**
 * A write, typed from the API document: `request` makes the call's parameters
 * and body from the mutation's variables. On success the reads whose path
 * starts with one of `invalidates` are fetched again.
 */
export function useApiMutation<M extends Exclude<Method, 'get'>, P extends PathOf<M>, V = void>(
  method: M,
  path: P,
  request: (vars: V) => InitOf<M, P>,
  invalidates: PathOf<'get'>[] = [],
) {
  const { call, mode } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => dataOf<M, P>(call, method, path, request(vars)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({
        predicate: (query) => query.queryKey[0] === mode && invalidates.some((prefix) => String(query.queryKey[1]).startsWith(prefix)),
      });
    },
  });
}

/**
 * A cursor-paged list of `path` with `query` (its filters), a page at a time.
 * The cursors of the pages before are kept in the address (`pagesKey`), so a
 * link opens the same page and Newer goes back; a filter changed through the
 * address starts again at the first page. `pager` is what the Pager shows.
 */
export function usePagedList<P extends PagedPath>(path: P, query: QueryOf<P>, pagesKey = 'pages') {
  const address = useAddress();
  const cursors = address.get(pagesKey).split(',').filter(Boolean);
  const cursor = cursors.at(-1);
  const page = useApiPage(path, cursor ? { ...query, cursor } : query);
  const next = page.data?.nextCursor;
  const pager = {
    page: cursors.length + 1,
    onNewer: cursors.length === 0 || page.isFetching ? undefined : () => address.set({ [pagesKey]: cursors.slice(0, -1).join(',') }, { paging: true }),
    onOlder: next ? () => address.set({ [pagesKey]: [...cursors, next].join(',') }, { paging: true }) : undefined,
    loadingOlder: page.isFetching && page.isPlaceholderData,
  };
  return { page, pager, rows: { isPending: page.isPending, isError: page.isError, error: page.error, data: page.data?.items } };
}

/** The signed-in user's role (from the team list), or null while it is not known; `error` when the list could not be read. */
export function useMyRoleState(): { role: Schemas['TeamMember']['role'] | null; error: unknown } {
  const { email } = useSession();
  const users = useApiQuery('/users');
  const me = users.data?.find((u) => !!email && u.email.toLowerCase() === email.toLowerCase());
  return { role: me?.role ?? null, error: users.data === undefined ? users.error : null };
}

/** The signed-in user's role (from the team list), or null while it is not known. */
export function useMyRole(): Schemas['TeamMember']['role'] | null {
  return useMyRoleState().role;
}

/**
 * Whether the pages offer the signed-in user no change: a member, whose every
 * change the API refuses (403), and anyone while the role is not known yet
 * (no form is shown that may vanish a moment later). A member is told who
 * may instead, and anyone whose role could not be read is told why no change
 * is offered (OwnersAndAdminsOnly).
 */
export function useReadOnly(): boolean {
  const role = useMyRole();
  return role !== 'owner' && role !== 'admin';
}
