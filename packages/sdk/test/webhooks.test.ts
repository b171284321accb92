// Risk: a receiver's constructEvent accepts a forged delivery: one signed with
// an empty key when the secret it was given is empty ('' from an unset
// variable, or a bare `whsec_`), or not a key Cowrie issues; or a replayed
// one, its window switched off by a tolerance or clock that is NaN. Nothing is
// started: constructEvent is the receiver's own code, over bytes and headers.
import { createHmac, randomBytes } from 'node:crypto';
import { CowrieWebhookError, constructEvent, standardWebhooksSecret, standardWebhooksSignatureHeader } from '../src';

const rawBody = JSON.stringify({ id: 'evt_1', event: 'transfer.completed', created_at: '2026-11-22T10:00:00.000Z', data: { id: 1 }, livemode: true });
const t = 1_795_000_000;
const now = t * 1000;

/** Standard Webhooks headers signed with `key`, as bytes (an empty key is what an empty secret derives). */
function standardHeaders(key: Buffer, body = rawBody) {
  const signature = createHmac('sha256', key).update(`evt_1.${t}.${body}`).digest('base64');
  return { 'webhook-id': 'evt_1', 'webhook-timestamp': String(t), 'webhook-signature': `v1,${signature}` };
}

/** X-Cowrie-Signature signed with `key`. */
function cowrieHeaders(key: Buffer, body = rawBody) {
  return { 'x-cowrie-signature': `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}` };
}

/** The refusal constructEvent throws, or 'accepted'. */
function outcome(secret: string, headers: Record<string, string>): { reason: string; message: string } | 'accepted' {
  try {
    constructEvent(rawBody, headers, secret, { now });
    return 'accepted';
  } catch (err) {
    if (!(err instanceof CowrieWebhookError)) throw err;
    return { reason: err.reason, message: err.message };
  }
}

test('a delivery forged with an empty key is refused when the secret is empty or a bare whsec_, by either header set', () => {
  const empty = Buffer.alloc(0);
  const forged = { ...standardHeaders(empty), ...cowrieHeaders(empty) };
  for (const secret of ['', 'whsec_', standardWebhooksSecret('')]) {
    expect(outcome(secret, standardHeaders(empty))).toMatchObject({ reason: 'invalid_signature' });
    expect(outcome(secret, cowrieHeaders(empty))).toMatchObject({ reason: 'invalid_signature' });
    expect(outcome(secret, forged)).toMatchObject({ reason: 'invalid_signature' });
  }
});

test('a secret that is not one Cowrie issues (64 hex characters, or its whsec_ form) is refused, without echoing it', () => {
  const notIssued = ['short', `whsec_${Buffer.from('short').toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`, 'whsec_!!!', ' '];
  for (const secret of notIssued) {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
    // Signed with exactly the key the secret names: refused for the secret, not the signature.
    const refused = outcome(secret, { ...standardHeaders(key), ...cowrieHeaders(key) });
    expect(refused).toMatchObject({ reason: 'invalid_signature', message: expect.stringContaining('64 hex') });
    if (secret.trim()) expect(refused !== 'accepted' && refused.message).not.toContain(secret);
  }
});

test('an issued secret, in either form, still verifies its deliveries and refuses a forged one', () => {
  const secret = randomBytes(32).toString('hex');
  const key = Buffer.from(secret, 'utf8');
  expect(outcome(secret, standardHeaders(key))).toBe('accepted');
  expect(outcome(standardWebhooksSecret(secret), standardHeaders(key))).toBe('accepted');
  expect(outcome(secret, cowrieHeaders(key))).toBe('accepted');
  expect(outcome(standardWebhooksSecret(secret), cowrieHeaders(key))).toBe('accepted');
  expect(standardHeaders(key)['webhook-signature']).toBe(standardWebhooksSignatureHeader(secret, 'evt_1', t, rawBody));
  expect(outcome(secret, standardHeaders(Buffer.alloc(0)))).toMatchObject({ reason: 'invalid_signature' });
});

test('a tolerance that is not a finite number of seconds, 0 or more, or a time that is not one, throws instead of accepting a replay', () => {
  const secret = randomBytes(32).toString('hex');
  const signed = { ...standardHeaders(Buffer.from(secret, 'utf8')), ...cowrieHeaders(Buffer.from(secret, 'utf8')) };
  const dayLater = now + 86_400_000;
  for (const toleranceSeconds of [Number.NaN, Number(undefined), Infinity, -5]) {
    expect(() => constructEvent(rawBody, signed, secret, { now: dayLater, toleranceSeconds })).toThrow(
      new RangeError('toleranceSeconds must be a finite number of seconds, 0 or more'),
    );
  }
  for (const bad of [Number.NaN, new Date('not a date')]) {
    expect(() => constructEvent(rawBody, signed, secret, { now: bad })).toThrow(new RangeError('now must be a valid time'));
  }
  expect(() => constructEvent(rawBody, signed, secret, { now: dayLater })).toThrow(expect.objectContaining({ reason: 'timestamp_out_of_tolerance' }));
  expect(constructEvent(rawBody, signed, secret, { now: dayLater, toleranceSeconds: 86_400 })).toMatchObject({ id: 'evt_1' });
});
