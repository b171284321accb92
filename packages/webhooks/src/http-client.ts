import { setTimeout } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { findAddressRefusal, type AddressPolicy } from './address-policy';
import { createGuardedLookup, refusalOfLiteral, systemResolver, type Resolver } from './guarded-lookup';

/** What one POST attempt came to. */
export type AttemptResult =
  | { kind: 'response'; statusCode: number; /** The start of the body, as text (at most RESPONSE_EXCERPT_BYTES). */ bodyExcerpt: string }
  | { kind: 'network_error'; error: string }
  | { kind: 'timeout'; error: string }
  /** The URL resolved only to addresses the SSRF policy refuses; nothing was sent. */
  | { kind: 'refused'; error: string };

export interface WebhookHttpClient {
  post(url: string, body: Buffer, headers: Record<string, string>): Promise<AttemptResult>;
  close(): Promise<void>;
}

export interface WebhookHttpClientOptions {
  /** Per-attempt bound on connect + request + response (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  policy: AddressPolicy;
  /** Host name resolver; the system resolver by default. */
  resolver?: Resolver;
  /** Response body bytes read (the first RESPONSE_EXCERPT_BYTES kept) before the connection is dropped. Default 64 KiB. */
  maxResponseBytes?: number;
}

/** How long close() waits for attempts still in flight. */
const CLOSE_WAIT_MS = 1000;

/** Bytes of a receiver's answer kept for the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 2048;

/** The start of a body as text Postgres can store (no NUL). */
function excerptOf(chunks: Buffer[]): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES)).replaceAll('\u0000', '');
}

const describe = (err: unknown): string => {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
};

/**
 * POSTs webhook bodies over keep-alive connections. Every connection goes
 * through the guarded lookup, so it is pinned to an address the SSRF policy
 * allowed when it was opened; redirects are never followed (a 3xx is just a
 * non-2xx answer).
 */
export function createWebhookHttpClient(opts: WebhookHttpClientOptions): WebhookHttpClient {
  const resolver = opts.resolver ?? systemResolver;
  const agent = new Agent({
    connect: { lookup: createGuardedLookup(opts.policy, resolver), timeout: opts.timeoutMs },
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
  });
  const limit = opts.maxResponseBytes ?? 64 * 1024;

  return {
    async post(url, body, headers) {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return { kind: 'network_error', error: `invalid URL: ${url}` };
      }
      // Literal IPs never reach the lookup, so they are checked here.
      const literalRefusal = refusalOfLiteral(target.hostname, opts.policy);
      if (literalRefusal) return { kind: 'refused', error: literalRefusal.message };
      const signal = AbortSignal.timeout(opts.timeoutMs);
      try {
        const res = await request(target, {
          method: 'POST',
          body,
          headers,
          dispatcher: agent,
          signal,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        });
        const head: Buffer[] = [];
        let kept = 0;
        let read = 0;
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            read += chunk.length;
            if (kept < RESPONSE_EXCERPT_BYTES) {
              head.push(chunk);
              kept += chunk.length;
            }
            // Leaving the loop destroys the body: the connection is dropped rather than read to its end.
            if (read >= limit) break;
          }
        } catch {
          // A body cut short still leaves its status as the answer.
        }
        return { kind: 'response', statusCode: res.statusCode, bodyExcerpt: excerptOf(head) };
      } catch (err) {
        const refusal = findAddressRefusal(err);
        if (refusal) return { kind: 'refused', error: refusal.message };
        const name = (err as { name?: string; code?: string })?.name;
        const code = (err as { code?: string })?.code;
        if (
          signal.aborted ||
          name === 'TimeoutError' ||
          code === 'UND_ERR_HEADERS_TIMEOUT' ||
          code === 'UND_ERR_CONNECT_TIMEOUT' ||
          code === 'UND_ERR_BODY_TIMEOUT'
        ) {
          return { kind: 'timeout', error: `timed out after ${opts.timeoutMs} ms` };
        }
        return { kind: 'network_error', error: describe(err) };
      }
    },
    // Called once the worker has closed: an attempt still in flight belongs to a job handed back past the
    // grace period (another sender delivers it again, under the same delivery id), so its answer is waited
    // for only briefly; the process exits after, and a slow receiver cannot hold the stop past its bound.
    close: () => Promise.race([agent.close(), setTimeout(CLOSE_WAIT_MS, undefined, { ref: false })]),
  };
}
