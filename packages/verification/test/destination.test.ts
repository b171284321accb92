// Risk: a non-Nigerian or malformed number, or a bad email, reaching a provider;
// a destination shown unmasked; whatsapp offered where it would reach nobody.
import { channelAvailable, verificationChannelStatuses } from '../src/channels';
import { maskDestination, normaliseDestination, normaliseEmail, normalisePhone } from '../src/destination';

describe('phone destinations', () => {
  test.each([
    ['+2348012345678', '+2348012345678'],
    ['+234 801 234 5678', '+2348012345678'],
    ['+234-801-234-5678', '+2348012345678'],
    ['2348012345678', '+2348012345678'],
    ['08012345678', '+2348012345678'],
    ['  +2347012345678 ', '+2347012345678'],
    ['+2340000000000', '+2340000000000'],
  ])('%s is normalised to %s', (raw, e164) => {
    expect(normalisePhone(raw)).toEqual({ kind: 'valid', destination: e164 });
  });

  test.each([
    ['a US number', '+14155552671', /Nigerian/],
    ['a UK number', '+447911123456', /Nigerian/],
    ['too short', '+234801234567', /Nigerian|E\.164/],
    ['too long', '+23480123456789', /Nigerian/],
    ['letters', '+234801234567a', /E\.164/],
    ['an extension', '+2348012345678 ext. 12', /E\.164/],
    ['text around a number', 'call +2348012345678', /E\.164/],
    ['empty', '', /E\.164/],
    ['only a plus', '+', /E\.164/],
  ])('%s is refused', (_name, raw, message) => {
    const result = normalisePhone(raw);
    expect(result.kind).toBe('invalid');
    if (result.kind === 'invalid') expect(result.message).toMatch(message);
  });

  test('sms and voice use phone rules, email uses email rules', () => {
    expect(normaliseDestination('sms', '08012345678')).toEqual({ kind: 'valid', destination: '+2348012345678' });
    expect(normaliseDestination('voice', '08012345678')).toEqual({ kind: 'valid', destination: '+2348012345678' });
    expect(normaliseDestination('email', '08012345678').kind).toBe('invalid');
    expect(normaliseDestination('sms', 'ada@example.com').kind).toBe('invalid');
  });
});

describe('email destinations', () => {
  test('are trimmed and lowercased', () => {
    expect(normaliseEmail('  Ada.Lovelace@Example.COM ')).toEqual({ kind: 'valid', destination: 'ada.lovelace@example.com' });
  });

  test.each(['ada', 'ada@', '@example.com', 'ada@example', 'ada @example.com', 'ada@@example.com', `${'a'.repeat(250)}@example.com`])(
    '%s is refused',
    (raw) => {
      expect(normaliseEmail(raw)).toEqual({ kind: 'invalid', message: 'must be a valid email address' });
    },
  );
});

describe('masking', () => {
  test('phones keep +234, three leading and three trailing digits', () => {
    expect(maskDestination('+2348012345678')).toBe('+234801****678');
  });

  test('emails keep the first and last character of the local part and the domain', () => {
    expect(maskDestination('ada.lovelace@example.com')).toBe('a**********e@example.com');
    expect(maskDestination('ab@example.com')).toBe('a*@example.com');
    // A one-character local part is all hidden: showing its first character would show all of it.
    expect(maskDestination('a@example.com')).toBe('*@example.com');
  });

  test('no masked phone contains its middle digits', () => {
    for (const n of ['+2348012345678', '+2349099999999', '+2347000000001']) {
      const masked = maskDestination(n);
      expect(masked).not.toContain(n.slice(7, 11));
      expect(masked).toHaveLength(n.length);
    }
  });
});

describe('channel availability', () => {
  const config = { NODE_ENV: 'production' as const, ALLOW_SANDBOX_IN_PRODUCTION: false, VERIFY_WHATSAPP_PROVIDER: 'sandbox' as const };
  test('production without a WhatsApp provider: whatsapp is not available in live mode (the sandbox would send nothing), the rest are', () => {
    expect(verificationChannelStatuses(config)).toEqual({ sms: 'live', voice: 'live', email: 'live', whatsapp: 'coming_soon' });
    expect(channelAvailable(config, 'whatsapp', 'test')).toBe(true);
  });
  test.each([
    [{ ...config, VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud' as const }],
    [{ ...config, ALLOW_SANDBOX_IN_PRODUCTION: true }],
    [{ ...config, NODE_ENV: 'development' as const }],
  ])('available with a provider, on staging, or outside production', (c) => {
    expect(channelAvailable(c, 'whatsapp', 'live')).toBe(true);
  });
});
