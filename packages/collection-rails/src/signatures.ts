import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA512 of the exact raw body: the scheme Paystack signs notifications with (and our sandbox copies). */
export function hmacSha512Hex(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha512', secret).update(rawBody).digest('hex');
}

/** True when `signature` is the HMAC-SHA512 of `rawBody` under `secret`; compared in constant time. */
export function verifyHmacSha512(secret: string, rawBody: Buffer, signature: string | undefined | null): boolean {
  if (!signature || !/^[0-9a-f]{128}$/i.test(signature.trim())) return false;
  const expected = Buffer.from(hmacSha512Hex(secret, rawBody), 'hex');
  const given = Buffer.from(signature.trim().toLowerCase(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
