import { stringify } from 'csv-stringify/sync';

// A spreadsheet runs a cell that begins with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell of an export: empty for null, and a cell a spreadsheet would run as a formula starts with `'`. */
export const csvText = (value: string | null): string => (value === null ? '' : FORMULA_START.test(value) ? `'${value}` : value);

/** Records as CSV text (RFC 4180: quoted where needed, CRLF between records). Text cells go through csvText first. */
export const csvRecords = (records: string[][]): string => stringify(records, { record_delimiter: 'windows' });

/** How many rows an export reads at a time. */
const EXPORT_PAGE_SIZE = 1000;

/**
 * An export as CSV text (RFC 4180, a header line first), newest first, a page
 * of rows at a time: the caller writes each chunk as it comes, so an export of
 * any size holds one page in memory. `page(after)` reads the next page
 * (newest first, the rows after `after`); the header goes with the first
 * page, so nothing is sent before the first read succeeded.
 */
export async function* pagedCsv<Row extends { createdAt: Date; id: number | bigint }>(opts: {
  columns: readonly string[];
  record: (row: Row) => string[];
  page: (after: { createdAt: Date; id: number } | null, size: number) => Promise<Row[]>;
}): AsyncGenerator<string> {
  let header = csvRecords([[...opts.columns]]);
  let after: { createdAt: Date; id: number } | null = null;
  for (;;) {
    const rows = await opts.page(after, EXPORT_PAGE_SIZE);
    yield header + csvRecords(rows.map(opts.record));
    header = '';
    const last = rows.at(-1);
    if (!last || rows.length < EXPORT_PAGE_SIZE) return;
    after = { createdAt: last.createdAt, id: Number(last.id) };
  }
}
