// Risk: a 400 that does not read as docs/conventions.md promises ("<field> must …",
// naming the field): zod's own text passed through ("limit: Too small: expected
// number to be >=1"), or a wrong article ("events must be a array").
import type { Request } from 'express';
import { z } from 'zod';
import { AppError } from '@cowrie/core';
import { parseBody, parseQuery } from '../src/http/validate';

/** The 400 a body answers with: its message and details.field. */
function refusal(schema: z.ZodType, body: unknown, parse: typeof parseBody = parseBody): { message: string; field: unknown } {
  try {
    parse(schema, { body, query: body } as unknown as Request);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.code).toBe('invalid_request');
    return { message: err.message, field: err.details?.field };
  }
  throw new Error('accepted');
}

test.each([
  ['an array', z.object({ events: z.array(z.string()) }), { events: '*' }, 'events must be an array'],
  ['an object', z.object({ metadata: z.object({}) }), { metadata: 'x' }, 'metadata must be an object'],
  ['an integer', z.object({ n: z.number().int() }), { n: 1.5 }, 'n must be an integer'],
  ['a string', z.object({ s: z.string() }), { s: 5 }, 's must be a string'],
  ['a number', z.object({ n: z.number() }), { n: 'ten' }, 'n must be a number'],
  ['a boolean', z.object({ b: z.boolean() }), { b: 'yes' }, 'b must be a boolean'],
  ['a nested field', z.object({ a: z.object({ b: z.array(z.number()) }) }), { a: { b: [1, 'x'] } }, 'a.b.1 must be a number'],
])('a wrong type: %s', (_name, schema, body, message) => {
  expect(refusal(schema, body).message).toBe(message);
});

test.each([
  ['a number, inclusive', z.number().min(1), 0, 'f must be at least 1'],
  ['a positive number (exclusive)', z.number().int().positive(), -1, 'f must be greater than 0'],
  ['a number, at most', z.number().max(100), 101, 'f must be at most 100'],
  ['a number, exclusive maximum', z.number().lt(10), 10, 'f must be less than 10'],
  ['a string, at least', z.string().min(3), 'ab', 'f must be at least 3 characters'],
  ['a string, at least one character', z.string().min(1), '', 'f must be at least 1 character'],
  ['a string, at most', z.string().max(5), 'abcdef', 'f must be at most 5 characters'],
  ['a string, exactly', z.string().length(4), 'abc', 'f must be exactly 4 characters'],
  ['an array, at least', z.array(z.string()).min(1), [], 'f must have at least 1 item'],
  ['an array, at least several', z.array(z.string()).min(2), ['a'], 'f must have at least 2 items'],
  ['an array, at most', z.array(z.string()).max(2), ['a', 'b', 'c'], 'f must have at most 2 items'],
])('a size: %s', (_name, schema, value, message) => {
  expect(refusal(z.object({ f: schema }), { f: value })).toEqual({ message, field: 'f' });
});

test.each([
  ['an enum', z.enum(['live', 'test']), 'prod', 'f must be one of live, test'],
  ['a literal', z.literal('yes'), 'no', 'f must be yes'],
  ['an email', z.email(), 'nope', 'f must be an email address'],
  ['a URL', z.url(), 'nope', 'f must be a URL'],
  ['a UUID', z.uuid(), 'nope', 'f must be a UUID'],
  ['an ISO date and time', z.iso.datetime(), 'yesterday', 'f must be an ISO 8601 date and time'],
  ['a prefix', z.string().startsWith('snd_'), 'x', 'f must start with "snd_"'],
  ['a pattern', z.string().regex(/^[0-9]+$/), 'x', 'f must match the pattern /^[0-9]+$/'],
  ['a multiple', z.number().multipleOf(5), 7, 'f must be a multiple of 5'],
  ['a union of types', z.union([z.string(), z.number()]), true, 'f must be a string or a number'],
])('a value: %s', (_name, schema, value, message) => {
  expect(refusal(z.object({ f: schema }), { f: value })).toEqual({ message, field: 'f' });
});

test('a query limit out of range names the field and the bound', () => {
  const query = z.object({ limit: z.coerce.number().int().min(1).max(100).optional() });
  expect(refusal(query, { limit: '0' }, parseQuery)).toEqual({ message: 'limit must be at least 1', field: 'limit' });
  expect(refusal(query, { limit: '101' }, parseQuery)).toEqual({ message: 'limit must be at most 100', field: 'limit' });
  expect(refusal(query, { limit: 'ten' }, parseQuery)).toEqual({ message: 'limit must be a number', field: 'limit' });
});

test("a schema's own predicate is kept, and a missing field is required", () => {
  expect(refusal(z.object({ amount: z.number().min(1, 'must be at least 1') }), { amount: 0 }).message).toBe('amount must be at least 1');
  expect(refusal(z.object({ s: z.string('must be text') }), { s: 1 }).message).toBe('s must be text');
  expect(refusal(z.object({ s: z.string() }), {})).toEqual({ message: 's is required', field: 's' });
});

test("no message passes zod's own text through", () => {
  const schema = z.object({
    a: z.string().refine(() => false),
    b: z.record(z.enum(['x']), z.number()),
  });
  for (const body of [
    { a: 'x', b: {} },
    { a: 1, b: { y: 1 } },
  ]) {
    const { message } = refusal(schema, body);
    expect(message).toMatch(/^[a-z_.0-9]+ (must|is) /);
    expect(message).not.toMatch(/Invalid|Too (small|big)|expected/);
  }
});
