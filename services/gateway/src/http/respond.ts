import type { Request, Response } from 'express';
import { AppError, successEnvelope } from '@cowrie/core';

/** Sends `{data, meta: {request_id}}` with the given status. */
export function sendData(req: Request, res: Response, status: number, data: unknown): void {
  res.status(status).json(successEnvelope(data, req.id));
}

/** Sends a page of a cursor-paginated list: `{data, meta: {request_id, next_cursor}}` (the cursor is additive to the envelope's meta). */
export function sendPage(req: Request, res: Response, page: { items: unknown[]; nextCursor: string | null }): void {
  res.status(200).json({ data: page.items, meta: { request_id: req.id, next_cursor: page.nextCursor } });
}

/** The key of the signed-in API caller; routes behind requireApiKey always have one. */
export function apiKeyOf(req: Request) {
  if (!req.apiKey) throw new AppError('unauthorized', 'Missing API key');
  return req.apiKey;
}

export function sessionOf(req: Request) {
  if (!req.session) throw new AppError('unauthorized', 'Sign in required');
  return req.session;
}
