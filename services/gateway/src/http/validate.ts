import type { Request } from 'express';
import type { z } from 'zod';
import { AppError } from '@cowrie/core';

function describe(issue: z.core.$ZodIssue, input: unknown): { field: string; message: string } {
  const field = issue.path.map(String).join('.') || 'body';
  let value: unknown = input;
  for (const key of issue.path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  if (issue.code === 'invalid_type' && value === undefined) return { field, message: `${field} is required` };
  if (issue.code === 'invalid_type') return { field, message: `${field} must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}` };
  return { field, message: `${field}: ${issue.message}` };
}

/**
 * The path of the first string (value or key) in `value` that holds U+0000.
 * Postgres cannot store that character in text or jsonb, so such input is
 * refused here as a 400 rather than by the database as a 500.
 */
function nulCharacterAt(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '')];
    const found = nulCharacterAt(item, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Parses one part of a request; the first issue becomes a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const nulAt = nulCharacterAt(input);
  if (nulAt) {
    const field = nulAt.join('.') || 'body';
    throw new AppError('invalid_request', `${field} must not contain the NUL character (U+0000)`, { details: { field } });
  }
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
export const parseQuery = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseInput(schema, req.query);
export const parseParams = <S extends z.ZodType>(schema: S, req: Request): z.output<S> => parseInput(schema, req.params);
