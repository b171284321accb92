// Risk: the whatsapp channel refused, validated unlike sms, missing from the
// catalog, or a number that is not on WhatsApp answered as a success; the
// Cloud API adapter not wired through the dispatcher; whatsapp starts escaping
// the verification limits.
import { createWorkspaceWithKey } from '@cowrie/testing';
import { startWhatsAppStandIn, type WhatsAppStandIn } from '@cowrie/verification/testing';
import { call } from './start-test-gateway';
import { startVerificationGateway } from './start-verification-gateway';

describe('the sandbox (default)', () => {
  let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
  beforeAll(async () => {
    gw = await startVerificationGateway({ VERIFY_RATE_DEST_LIMIT: '2', VERIFY_RATE_WINDOW_SECONDS: '86400' });
  });
  afterAll(() => gw.close());
  const start = (token: string, body: Record<string, unknown>) => call(gw.url, 'POST', '/v1/verifications', { token, body });

  test('a whatsapp code: normalised like sms, in the outbox, verified by its code; provider sandbox', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    const res = await start(key, { channel: 'whatsapp', destination: '0803 123 4567' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ channel: 'whatsapp', destination: '+234803****567', status: 'pending' });
    const [message] = await gw.sandboxMessages('+2348031234567');
    expect(message).toMatchObject({ channel: 'whatsapp', reference: res.body.data.reference });
    const check = await call(gw.url, 'POST', `/v1/verifications/${res.body.data.reference}/check`, { token: key, body: { code: message!.code } });
    expect(check.body.data).toEqual({ status: 'verified' });
    const read = await call(gw.url, 'GET', `/v1/verifications/${res.body.data.reference}`, { token: key });
    expect(read.body.data).toMatchObject({ channel: 'whatsapp', provider: 'sandbox', status: 'verified' });
  });

  test('the test helper reads a test-mode whatsapp code', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db, { mode: 'test' });
    const res = await start(key, { channel: 'whatsapp', destination: '+2348031234500' });
    expect(res.status).toBe(201);
    const code = await call(gw.url, 'GET', `/v1/test_helpers/verifications/${res.body.data.reference}/code`, { token: key });
    expect(code.status).toBe(200);
    expect(code.body.data.code).toMatch(/^\d{4}$/);
  });

  test.each([
    ['a non-Nigerian number', '+14155552671', 'destination must be a Nigerian phone number (+234 followed by 10 digits)'],
    ['an email address', 'ada@example.com', 'destination must be an E.164 phone number such as +2348012345678'],
  ])('%s is a 400 naming destination, nothing stored', async (_name, destination, message) => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    const before = await gw.env.db.verification.count();
    const res = await start(key, { channel: 'whatsapp', destination });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message, details: { field: 'destination' } });
    expect(await gw.env.db.verification.count()).toBe(before);
  });

  test('a number that is not on WhatsApp: 400 Could not deliver the code, the row failed', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    const res = await start(key, { channel: 'whatsapp', destination: '+2340000000001' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: 'Could not deliver the code: the number is not on WhatsApp' });
    const row = await call(gw.url, 'GET', `/v1/verifications/${res.body.error.details.reference}`, { token: key });
    expect(row.body.data).toMatchObject({ channel: 'whatsapp', status: 'failed' });
    // The same number still takes an sms.
    expect((await start(key, { channel: 'sms', destination: '+2340000000001' })).status).toBe(201);
  });

  test('whatsapp starts count toward the per-destination limit with the other channels', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db);
    expect((await start(key, { channel: 'sms', destination: '+2348039990000' })).status).toBe(201);
    expect((await start(key, { channel: 'whatsapp', destination: '+2348039990000' })).status).toBe(201);
    const limited = await start(key, { channel: 'whatsapp', destination: '+2348039990000' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.details.reason).toBe('destination');
  });

  test('GET /v1/capabilities and /v1/channels report whatsapp; the deposit channels are unchanged', async () => {
    const { key } = await createWorkspaceWithKey(gw.env.db, { scopes: ['read'] });
    const caps = await call(gw.url, 'GET', '/v1/capabilities', { token: key });
    expect(caps.body.data.verification_channels).toEqual({ sms: 'live', voice: 'live', email: 'live', whatsapp: 'live' });
    const channels = await call(gw.url, 'GET', '/v1/channels', { token: key });
    expect(channels.body.data.map((c: { id: string }) => c.id).sort()).toEqual(['card', 'collection_va', 'open_banking', 'reserved_va']);
    expect(channels.body.meta.request_id).toBe(channels.headers.get('x-request-id'));
    expect(channels.body.meta.verification_channels).toContainEqual({ id: 'whatsapp', label: 'Codes on WhatsApp', status: 'live' });
  });
});

describe('the WhatsApp Cloud API', () => {
  let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
  let wa: WhatsAppStandIn;
  let key: string;
  beforeAll(async () => {
    wa = await startWhatsAppStandIn({
      accessToken: 'EAAJB-gateway-token',
      phoneNumberId: '105954558954427',
      templates: { cowrie_code: ['en'] },
      notOnWhatsApp: ['2348059999999'],
    });
    gw = await startVerificationGateway({
      VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud',
      WHATSAPP_ACCESS_TOKEN: 'EAAJB-gateway-token',
      WHATSAPP_PHONE_NUMBER_ID: '105954558954427',
      WHATSAPP_TEMPLATE_NAME: 'cowrie_code',
      WHATSAPP_TEMPLATE_LANGUAGE: 'en',
      WHATSAPP_BASE_URL: wa.url,
      VERIFY_PROVIDER_TIMEOUT_MS: '2000',
    });
    key = (await createWorkspaceWithKey(gw.env.db)).key;
  });
  afterAll(async () => {
    await gw.close();
    await wa.close();
  });

  test('the code goes out as the authentication template and verifies; provider whatsapp_cloud with the wamid kept', async () => {
    const res = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'whatsapp', destination: '+2348051234567' } });
    expect(res.status).toBe(201);
    const sent = wa.sent.at(-1)!;
    expect(sent.to).toBe('2348051234567');
    const check = await call(gw.url, 'POST', `/v1/verifications/${res.body.data.reference}/check`, { token: key, body: { code: sent.code } });
    expect(check.body.data).toEqual({ status: 'verified' });
    const row = await gw.env.db.verification.findFirstOrThrow({ where: { reference: res.body.data.reference } });
    expect(row).toMatchObject({ provider: 'whatsapp_cloud', providerReference: sent.id });
  });

  test('a number not on WhatsApp: 400 Could not deliver the code: the number is not on WhatsApp', async () => {
    const res = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'whatsapp', destination: '+2348059999999' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Could not deliver the code: the number is not on WhatsApp');
  });

  test('rate limited by WhatsApp: the delivery failure names it', async () => {
    wa.reply = () => ({ status: 429, code: 130429, message: 'Rate limit hit' });
    try {
      const res = await call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'whatsapp', destination: '+2348051230000' } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Could not deliver the code: whatsapp is rate limiting this sender (130429)');
    } finally {
      wa.reply = () => undefined;
    }
  });
});
