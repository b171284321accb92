import type { TErrorCode } from './errors';

export interface TSuccessEnvelope<T> {
  data: T;
  meta: { request_id: string };
}

export interface TErrorEnvelope {
  error: { code: TErrorCode | string; message: string; details?: Record<string, unknown> };
  request_id: string;
}

export const successEnvelope = <T>(data: T, requestId: string): TSuccessEnvelope<T> => ({
  data,
  meta: { request_id: requestId },
});

export function errorEnvelope(code: TErrorCode | string, message: string, requestId: string, details?: Record<string, unknown>): TErrorEnvelope {
  return { error: details === undefined ? { code, message } : { code, message, details }, request_id: requestId };
}
