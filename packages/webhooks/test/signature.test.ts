// Risk: a receiver following our README cannot verify a genuine delivery, or
// accepts a forged, altered or replayed one.
import { createHmac } from 'node:crypto';
import {
  computeStandardWebhooksSignature,
  computeWebhookSignature,
  parseWebhookSignatureHeader,
  standardWebhooksSecret,
  standardWebhooksSignatureHeader,
  verifyWebhookSignature,
  webhookSignatureHeader,
} from '../src/signature';
import { generateWebhookSecret } from '../src/endpoints';

const secret = generateWebhookSecret();
const rawBody = '{"id":"5d0c1f5e-8f2a-4b7e-9d55-1f0e0c3a9b21","event":"ping","created_at":"2026-11-22T10:00:00.000Z","data":{"message":"hi","endpoint_id":1}}';
const t = 1_795_000_000;
const now = t * 1000;

test('the header is t=<unix>,v1=<64 hex> and verifies with the secret over the raw body', () => {
  const header = webhookSignatureHeader(secret, t, rawBody);
  expect(header).toMatch(/^t=1795000000,v1=[0-9a-f]{64}$/);
  expect(verifyWebhookSignature({ rawBody, header, secret, now })).toBe(true);
  expect(verifyWebhookSignature({ rawBody: Buffer.from(rawBody), header, secret, now: new Date(now) })).toBe(true);
});

test('the digest is HMAC-SHA256 of "<t>." + body keyed with the secret string as UTF-8 bytes', () => {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${rawBody}`).digest('hex');
  expect(computeWebhookSignature(secret, t, rawBody)).toBe(expected);
  const keyedWithDecodedBytes = createHmac('sha256', Buffer.from(secret, 'hex')).update(`${t}.${rawBody}`).digest('hex');
  expect(computeWebhookSignature(secret, t, rawBody)).not.toBe(keyedWithDecodedBytes);
});

test('a wrong secret, an altered body or a re-serialised body is refused', () => {
  const header = webhookSignatureHeader(secret, t, rawBody);
  expect(verifyWebhookSignature({ rawBody, header, secret: generateWebhookSecret(), now })).toBe(false);
  expect(verifyWebhookSignature({ rawBody: rawBody.replace('"hi"', '"ho"'), header, secret, now })).toBe(false);
  expect(verifyWebhookSignature({ rawBody: JSON.stringify(JSON.parse(rawBody), null, 2), header, secret, now })).toBe(false);
  expect(verifyWebhookSignature({ rawBody: rawBody + '\n', header, secret, now })).toBe(false);
});

test('a digest for another timestamp is refused (t is part of the signed string)', () => {
  const digest = computeWebhookSignature(secret, t, rawBody);
  expect(verifyWebhookSignature({ rawBody, header: `t=${t + 1},v1=${digest}`, secret, now })).toBe(false);
});

test('timestamps outside the 5-minute tolerance are refused, both ways', () => {
  const header = webhookSignatureHeader(secret, t, rawBody);
  expect(verifyWebhookSignature({ rawBody, header, secret, now: now + 300_000 })).toBe(true);
  expect(verifyWebhookSignature({ rawBody, header, secret, now: now + 301_000 })).toBe(false);
  expect(verifyWebhookSignature({ rawBody, header, secret, now: now - 301_000 })).toBe(false);
  expect(verifyWebhookSignature({ rawBody, header, secret, now: now + 60_000, toleranceSeconds: 30 })).toBe(false);
  expect(verifyWebhookSignature({ rawBody, header, secret, now: now + 3_600_000, toleranceSeconds: 7200 })).toBe(true);
});

// The number of an unset environment variable is NaN, and `age > NaN` is never true: such a
// tolerance (or clock) would switch the replay window off, so it throws.
test('a tolerance that is not a finite number of seconds, 0 or more, or a time that is not one, throws instead of switching the window off', () => {
  const stale = webhookSignatureHeader(secret, t - 86_400, rawBody);
  for (const toleranceSeconds of [Number.NaN, Number(undefined), Infinity, -1, '300' as unknown as number]) {
    expect(() => verifyWebhookSignature({ rawBody, header: stale, secret, now, toleranceSeconds })).toThrow(
      new RangeError('toleranceSeconds must be a finite number of seconds, 0 or more'),
    );
    // Even for a delivery that carries no signature at all: the setting is wrong whatever arrives.
    expect(() => verifyWebhookSignature({ rawBody, header: undefined, secret, now, toleranceSeconds })).toThrow(RangeError);
  }
  for (const bad of [Number.NaN, new Date(Number.NaN), Infinity]) {
    expect(() => verifyWebhookSignature({ rawBody, header: stale, secret, now: bad })).toThrow(new RangeError('now must be a valid time'));
  }
  expect(verifyWebhookSignature({ rawBody, header: webhookSignatureHeader(secret, t, rawBody), secret, now, toleranceSeconds: 0 })).toBe(true);
  expect(verifyWebhookSignature({ rawBody, header: stale, secret, now, toleranceSeconds: 0 })).toBe(false);
});

test('the tolerance defaults to the real clock', () => {
  const fresh = Math.floor(Date.now() / 1000);
  expect(verifyWebhookSignature({ rawBody, header: webhookSignatureHeader(secret, fresh, rawBody), secret })).toBe(true);
  expect(verifyWebhookSignature({ rawBody, header: webhookSignatureHeader(secret, fresh - 600, rawBody), secret })).toBe(false);
});

test.each([
  ['missing', undefined],
  ['empty', ''],
  ['no v1', `t=${t}`],
  ['no t', `v1=${'a'.repeat(64)}`],
  ['short digest', `t=${t},v1=abc`],
  ['garbage', 'hello'],
  ['non-numeric t', `t=abc,v1=${'a'.repeat(64)}`],
])('a %s header is refused without throwing', (_name, header) => {
  expect(verifyWebhookSignature({ rawBody, header, secret, now })).toBe(false);
});

test('any one matching v1 among several is accepted; array headers use the first value', () => {
  const good = computeWebhookSignature(secret, t, rawBody);
  expect(verifyWebhookSignature({ rawBody, header: `t=${t},v1=${'0'.repeat(64)},v1=${good}`, secret, now })).toBe(true);
  expect(verifyWebhookSignature({ rawBody, header: [`t=${t},v1=${good}`], secret, now })).toBe(true);
  expect(parseWebhookSignatureHeader(` t=${t} , v1=${good.toUpperCase()} `)).toEqual({ timestamp: t, signatures: [good] });
});

test('digests are compared with crypto.timingSafeEqual (constant time)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const crypto = require('node:crypto') as typeof import('node:crypto');
  const spy = jest.spyOn(crypto, 'timingSafeEqual');
  try {
    const header = webhookSignatureHeader(secret, t, rawBody);
    expect(verifyWebhookSignature({ rawBody, header, secret, now })).toBe(true);
    expect(verifyWebhookSignature({ rawBody: 'x', header, secret, now })).toBe(false);
    expect(spy).toHaveBeenCalledTimes(2);
  } finally {
    spy.mockRestore();
  }
});

test('several secrets sign one header, the first one first: a receiver holding either verifies', () => {
  const body = '{"id":"roll"}';
  const header = webhookSignatureHeader(['new-secret', 'old-secret'], 1795000000, body);
  expect(header).toMatch(/^t=1795000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  expect(header.split(',')[1]).toBe(`v1=${computeWebhookSignature('new-secret', 1795000000, body)}`);
  const at = 1795000000 * 1000;
  expect(verifyWebhookSignature({ rawBody: body, header, secret: 'new-secret', now: at })).toBe(true);
  expect(verifyWebhookSignature({ rawBody: body, header, secret: 'old-secret', now: at })).toBe(true);
  expect(verifyWebhookSignature({ rawBody: body, header, secret: 'other-secret', now: at })).toBe(false);
});

describe('Standard Webhooks', () => {
  const id = '5d0c1f5e-8f2a-4b7e-9d55-1f0e0c3a9b21';

  test('the whsec_ form is base64 of the very key bytes X-Cowrie-Signature uses (the 64-hex string as UTF-8)', () => {
    const whsec = standardWebhooksSecret(secret);
    expect(whsec).toMatch(/^whsec_[A-Za-z0-9+/]{86}==$/);
    const key = Buffer.from(whsec.slice('whsec_'.length), 'base64');
    expect(key.equals(Buffer.from(secret, 'utf8'))).toBe(true);
    // X-Cowrie-Signature's digest, recomputed with the key a Standard Webhooks library decodes from whsec_.
    expect(createHmac('sha256', key).update(`${t}.${rawBody}`).digest('hex')).toBe(computeWebhookSignature(secret, t, rawBody));
  });

  test('webhook-signature is v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">', () => {
    const key = Buffer.from(standardWebhooksSecret(secret).slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${t}.${rawBody}`).digest('base64');
    expect(computeStandardWebhooksSignature(secret, id, t, rawBody)).toBe(expected);
    expect(computeStandardWebhooksSignature(secret, id, t, Buffer.from(rawBody))).toBe(expected);
    expect(standardWebhooksSignatureHeader(secret, id, t, rawBody)).toBe(`v1,${expected}`);
    // The id and the timestamp are signed: another of either is another signature.
    expect(computeStandardWebhooksSignature(secret, 'other', t, rawBody)).not.toBe(expected);
    expect(computeStandardWebhooksSignature(secret, id, t + 1, rawBody)).not.toBe(expected);
  });

  test('several secrets give one v1 signature each, space-separated, the first secret first', () => {
    const header = standardWebhooksSignatureHeader(['new-secret', 'old-secret'], id, t, rawBody);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(header.split(' ')).toEqual([
      `v1,${computeStandardWebhooksSignature('new-secret', id, t, rawBody)}`,
      `v1,${computeStandardWebhooksSignature('old-secret', id, t, rawBody)}`,
    ]);
  });
});
