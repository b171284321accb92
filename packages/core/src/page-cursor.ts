import { AppError } from './errors';
import { isNameableTime } from './fields';

/** Where a page of a newest-first list ended: the (createdAt, id) of its last row. */
export interface PagePosition {
  createdAt: Date;
  id: number;
}

/** The `next_cursor` of a page whose last row is `position`: opaque to clients. */
export const encodePageCursor = (position: PagePosition): string =>
  Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString('base64url');

/** The largest id of a Postgres `integer` (int4) column: the id of most lists' rows. */
const INT4_MAX = 2_147_483_647;

interface DecodePageCursorOptions {
  /**
   * The largest id the list's rows can have: 2147483647 (an int4 id) by
   * default; a list of bigint ids (the audit trail) passes
   * Number.MAX_SAFE_INTEGER. A larger id would reach Postgres out of its
   * column's range.
   */
  maxId?: number;
}

/** The position a `cursor` from encodePageCursor names; 400 for anything else (an id outside 0..maxId included). */
export function decodePageCursor(cursor: string, { maxId = INT4_MAX }: DecodePageCursorOptions = {}): PagePosition {
  try {
    const [ms, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(ms) && isNameableTime(ms as number) && Number.isSafeInteger(id) && (id as number) >= 0 && (id as number) <= maxId) {
      return { createdAt: new Date(ms as number), id: id as number };
    }
  } catch {
    // fall through
  }
  throw new AppError('invalid_request', 'cursor: not a cursor returned by this endpoint', { details: { field: 'cursor' } });
}

/** Rows per page when a list's `limit` is not given, and the most it may ask. */
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

/**
 * A list's `limit`, clamped to 1..100, 20 when absent; a list that answered a
 * larger fixed number of rows before it paged keeps that as both (`sizes`), so
 * a client that sends no `limit` still gets the same first page.
 */
export const pageLimit = (limit: number | undefined, sizes: { default: number; max: number } = { default: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): number =>
  Math.min(Math.max(limit ?? sizes.default, 1), sizes.max);

/** The rows after a position of a list ordered by id alone (id desc): a Prisma `where`. */
export const idsAfter = (after: PagePosition) => ({ id: { lt: after.id } });

/** The order of a paged list, a Prisma `orderBy` for any model with these columns: newest first, ties by id. */
export const newestFirst = () => [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * The rows after a position of a list ordered by (createdAt desc, id desc): a
 * Prisma `where` for any model with those two columns.
 */
export const rowsAfter = (after: PagePosition) => ({
  OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
});

/** A page of `limit` rows out of `limit + 1` read, with the cursor of the next page (null on the last). */
export function pageOf<Row extends PagePosition, Item>(rows: Row[], limit: number, render: (row: Row) => Item): { items: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(render), nextCursor: rows.length > limit && last ? encodePageCursor(last) : null };
}
