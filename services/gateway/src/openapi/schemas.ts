import { z } from 'zod';

type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
/** S promises no more than T holds (it may narrow a string to an enum) and names the same fields. */
type Describes<S, T> = [S] extends [T] ? SameKeys<S, T> : false;

/**
 * A response schema checked at compile time against the type the code
 * renders, so the document cannot drift from the renderer:
 * `responseOf<VerificationRecord>()(ZVerificationRecord)`.
 */
export const responseOf =
  <T>() =>
  <S extends z.ZodType>(schema: S, ..._check: Describes<z.output<S>, T> extends true ? [] : ['this schema does not describe the rendered type']) =>
    schema;

/** An ISO 8601 UTC timestamp as the API renders it. */
export const ZTimestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });
/** An amount as the API renders it: a decimal string with 6 fractional digits. */
export const ZAmount = z.string().meta({ pattern: '^-?\\d+\\.\\d{6}$', description: 'Decimal string, 6 fractional digits', examples: ['1500.000000'] });
/** A database id in a path (`/collections/:id`). */
export const ZIdParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
