import type { Request } from 'express';
import type { z } from 'zod';
import { AppError } from '@cowrie/core';

/** What a value of a zod type is, with its article: "must be an array". */
const TYPE_NOUNS: Record<string, string> = { int: 'an integer', bigint: 'an integer', null: 'null', undefined: 'absent', never: 'absent', nan: 'NaN' };
const typeNoun = (expected: string): string => TYPE_NOUNS[expected] ?? `${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`;

/** What a string of a zod format is (an invalid_format issue), as "must be …" says it. */
const FORMAT_NOUNS: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  guid: 'a UUID',
  datetime: 'an ISO 8601 date and time',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  time: 'an ISO 8601 time (HH:MM:SS)',
  duration: 'an ISO 8601 duration',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  lowercase: 'in lower case',
  uppercase: 'in upper case',
};

const plural = (count: number | bigint, noun: string) => `${count} ${noun}${count === 1 || count === 1n ? '' : 's'}`;
const shown = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'bigint' ? `${value}` : JSON.stringify(value));

/** A size bound of a too_small or too_big issue, as the predicate after "must": "be at least 1", "have at most 5 items". */
function bound(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string | null {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const exactly = issue.exact ? 'exactly' : small ? 'at least' : 'at most';
  switch (issue.origin) {
    case 'number':
    case 'int':
    case 'bigint':
      if (issue.inclusive === false) return `be ${small ? 'greater' : 'less'} than ${limit}`;
      return `be ${exactly} ${limit}`;
    case 'string':
      return `be ${exactly} ${plural(limit, 'character')}`;
    case 'array':
    case 'set':
      return `have ${exactly} ${plural(limit, 'item')}`;
    case 'file':
      return `be ${exactly} ${plural(limit, 'byte')}`;
    case 'date': {
      const when = new Date(Number(limit)).toISOString();
      return issue.inclusive === false ? `be ${small ? 'after' : 'before'} ${when}` : `be ${small ? 'on or after' : 'on or before'} ${when}`;
    }
    default:
      return null;
  }
}

/** The predicate of zod's own issue, after the field's name ("must be an array"), or null where none fits. */
function predicateOf(issue: z.core.$ZodIssue): string | null {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${typeNoun(issue.expected)}`;
    case 'too_small':
    case 'too_big': {
      const said = bound(issue);
      return said && `must ${said}`;
    }
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${shown(issue.values[0])}` : `must be one of ${issue.values.map(shown).join(', ')}`;
    case 'invalid_format': {
      const format = issue as z.core.$ZodStringFormatIssues;
      if (format.format === 'starts_with') return `must start with "${format.prefix}"`;
      if (format.format === 'ends_with') return `must end with "${format.suffix}"`;
      if (format.format === 'includes') return `must include "${format.includes}"`;
      if (format.format === 'regex') return `must match the pattern ${format.pattern}`;
      return `must be ${FORMAT_NOUNS[format.format] ?? `a valid ${format.format}`}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `must not have ${issue.keys.length === 1 ? 'the field' : 'the fields'} ${issue.keys.join(', ')}`;
    case 'invalid_union': {
      // One value of several types ("a string or a number"); a union of shapes says no more than that it is not valid.
      const types = issue.errors.map((branch) =>
        branch.length === 1 && branch[0]!.code === 'invalid_type' && !branch[0]!.path.length ? branch[0]!.expected : null,
      );
      if (!types.length || types.includes(null)) return null;
      return `must be ${[...new Set(types as string[])].map(typeNoun).join(' or ')}`;
    }
    default:
      return null;
  }
}

/**
 * The 400 of a request's first issue, as docs/conventions.md promises it: the
 * field named in `details.field` and in the message, "<field> <predicate>"
 * ("amount must be at least 1", "currency is required"). A schema's own
 * message is a predicate already; zod's own text never reaches the client.
 */
function describe(issue: z.core.$ZodIssue, input: unknown): { field: string; message: string } {
  const field = issue.path.map(String).join('.') || 'body';
  let value: unknown = input;
  for (const key of issue.path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (issue.code === 'invalid_type' && value === undefined) return { field, message: `${field} is required` };
  // Our own messages are predicates ("must be at least 1"): "amount must be at least 1".
  if (/^[a-z]/.test(issue.message)) return { field, message: `${field} ${issue.message}` };
  const predicate = predicateOf(issue);
  if (predicate) return { field, message: `${field} ${predicate}` };
  // A refinement's own sentence (zod's default for one is "Invalid input").
  if (issue.code === 'custom' && issue.message !== 'Invalid input') return { field, message: `${field}: ${issue.message}` };
  return { field, message: `${field} is not valid` };
}

/** How deep a request's JSON may nest: far beyond any body of the API, far short of a stack. */
const MAX_INPUT_DEPTH = 32;

type InputProblem = { path: string[]; problem: 'nul' | 'surrogate' | 'depth' };

/** One half of a UTF-16 surrogate pair without the other (JSON may escape one: "\ud800"): with the u flag a pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** What a field's name is shown without. */
const UNSTORABLE = /\u0000|[\uD800-\uDFFF]/gu;

/** What is wrong with a string for Postgres: U+0000, or a lone surrogate, which is not text in UTF-8 (jsonb refuses it; text would store U+FFFD). */
const textProblem = (text: string): InputProblem['problem'] | null => (text.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(text) ? 'surrogate' : null);

/**
 * The first string (value or key) in `value` that holds U+0000 or a lone
 * surrogate, which Postgres cannot store as text, or the first place it nests deeper
 * than MAX_INPUT_DEPTH, which the schemas and JSON.stringify would recurse
 * into until the stack ran out. Either is a 400 here rather than a 500 later.
 * Walked with a stack of its own, so no input is too deep for the walk.
 */
function inputProblem(value: unknown): InputProblem | null {
  const pending: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (pending.length) {
    const { value: item, path } = pending.pop()!;
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem) return { path, problem };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) return { path, problem: 'depth' };
    const entries = Object.entries(item);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const problem = textProblem(key);
      if (problem) return { path: [...path, key.replace(UNSTORABLE, '')], problem };
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

const PROBLEM_MESSAGES: Record<InputProblem['problem'], (field: string) => string> = {
  nul: (field) => `${field} must not contain the NUL character (U+0000)`,
  surrogate: (field) => `${field} must be valid Unicode text: it holds a lone UTF-16 surrogate (U+D800 to U+DFFF)`,
  depth: (field) => `${field} nests deeper than ${MAX_INPUT_DEPTH} levels`,
};

/**
 * A 400 naming the field when `input` holds a NUL character or a lone surrogate, or nests deeper
 * than MAX_INPUT_DEPTH: run before anything walks the input (the schemas, the
 * Idempotency-Key layer's body hash, JSON.stringify), so no input reaches a
 * stack overflow or Postgres's refusal as a 500.
 */
export function assertInputShape(input: unknown): void {
  const found = inputProblem(input);
  if (found) {
    const field = found.path.join('.') || 'body';
    const message = PROBLEM_MESSAGES[found.problem](field);
    throw new AppError('invalid_request', message, { details: { field } });
  }
}

/** Parses one part of a request; the first issue becomes a 400 naming the field. */
function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  assertInputShape(input);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  const { field, message } = describe(first, input);
  throw new AppError('invalid_request', message, { details: { field } });
}

export const parseBody = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => {
  if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    throw new AppError('invalid_request', 'The request body must be a JSON object', { details: { field: 'body' } });
  }
  return parseInput(schema, req.body);
};
/** A query without its empty values (`?limit=`): an empty value counts as absent, as an empty Idempotency-Key does. */
function withoutEmptyValues(query: Request['query']): Request['query'] {
  if (!Object.values(query).includes('')) return query;
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}

export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseInput(schema, withoutEmptyValues(req.query));
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseInput(schema, req.params);
