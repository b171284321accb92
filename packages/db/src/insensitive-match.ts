/**
 * Prisma's `mode: 'insensitive'` filters are Postgres ILIKE patterns (`equals`
 * is `ILIKE $1`, `contains` `ILIKE '%' || $1 || '%'`), and Prisma passes the
 * text as it is: a `%` or `_` in it would match any text or character, and a
 * trailing `\` (LIKE's escape) fails the statement. These escape all three
 * with a backslash (LIKE's default escape), so every character means itself.
 */
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

/** A Prisma string filter: equal to `text` in any case, `%`, `_` and `\` included as themselves. */
export const insensitiveEquals = (text: string) => ({ equals: escapeLike(text), mode: 'insensitive' as const });

/** A Prisma string filter: holds `text` in any case, `%`, `_` and `\` included as themselves. */
export const insensitiveContains = (text: string) => ({ contains: escapeLike(text), mode: 'insensitive' as const });
