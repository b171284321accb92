import { stringify } from 'csv-stringify/sync';

// A spreadsheet runs a cell that begins with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell of an export: empty for null, and a cell a spreadsheet would run as a formula starts with `'`. */
export const csvText = (value: string | null): string => (value === null ? '' : FORMULA_START.test(value) ? `'${value}` : value);

/** Records as CSV text (RFC 4180: quoted where needed, CRLF between records). Text cells go through csvText first. */
export const csvRecords = (records: string[][]): string => stringify(records, { record_delimiter: 'windows' });
