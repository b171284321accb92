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

/** Parses one part of a request; the first issue becomes a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
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
