import type { ErrorCode } from './errors';

export interface SuccessEnvelope<T> {
  data: T;
  meta: { request_id: string };
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
  request_id: string;
}

export const successEnvelope = <T>(data: T, requestId: string): SuccessEnvelope<T> => ({
  data,
  meta: { request_id: requestId },
});

export function errorEnvelope(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>): ErrorEnvelope {
  return { error: details === undefined ? { code, message } : { code, message, details }, request_id: requestId };
}
