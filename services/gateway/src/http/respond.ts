import { once } from 'node:events';
import type { Express, Request, Response } from 'express';
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

/**
 * Streams a CSV export (`rows`: its chunks, the header with the first) as
 * `<name>-<date>.csv`, written as they are read. The first chunk is read before
 * anything is sent, so a failure there still gets the error envelope; a
 * failure later cuts the connection, so a client cannot take half a file for
 * the whole.
 */
export async function sendCsv(req: Request, res: Response, name: string, rows: AsyncGenerator<string>): Promise<void> {
  const first = await rows.next();
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
    'Cache-Control': 'no-store',
  });
  try {
    for (let chunk = first; !chunk.done; chunk = await rows.next()) {
      if (res.destroyed) return;
      if (!res.write(chunk.value)) await drainedOrClosed(res);
    }
    res.end();
  } catch (err) {
    req.log.error({ err }, `${name} export failed after it started`);
    res.destroy();
  } finally {
    await rows.return(undefined);
  }
}

/** Waits for `res` to drain or close; the wait's listeners go with it (a long export waits many times). */
async function drainedOrClosed(res: Response): Promise<void> {
  const over = new AbortController();
  try {
    await Promise.race([once(res, 'drain', { signal: over.signal }), once(res, 'close', { signal: over.signal })]);
  } finally {
    over.abort();
  }
}

/**
 * Makes `res.json` of `app` cheaper for the answers nearly every request gets,
 * with the same bytes and headers as express's: the body as JSON.stringify
 * writes it, `Content-Type: application/json; charset=utf-8` and
 * `Content-Length`, in that order. Whatever express's own does differently
 * goes to it: a Content-Type, ETag or Transfer-Encoding already set, a
 * conditional request (it may answer 304), HEAD, and 204, 205 and 304
 * answers. The gateway sets no `json replacer`, `json spaces` or `json escape`.
 */
export function useFastJson(app: Express): void {
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, body: unknown) {
    const { req, statusCode } = this;
    if (
      req.method === 'HEAD' ||
      statusCode === 204 ||
      statusCode === 205 ||
      statusCode === 304 ||
      req.headers['if-none-match'] !== undefined ||
      req.headers['if-modified-since'] !== undefined ||
      this.hasHeader('content-type') ||
      this.hasHeader('etag') ||
      this.hasHeader('transfer-encoding')
    ) {
      return expressJson.call(this, body);
    }
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return expressJson.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', String(Buffer.byteLength(text)));
    this.end(text, 'utf8');
    return this;
  };
}
