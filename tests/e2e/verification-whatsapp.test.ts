// Risk: the whatsapp channel refused, validated unlike sms, missing from the
// catalog, or a number that is not on WhatsApp answered as a success; the
// Cloud API adapter not wired through the dispatcher; whatsapp starts escaping
// the verification limits, or its attempts, TTL and webhooks differing from
// sms's.
import { createWorkspaceWithKey, startHttpReceiver, waitFor, type HttpReceiver } from '@cowrie/testing';
import { startWhatsAppStandIn, type WhatsAppStandIn } from '@cowrie/verification/testing';
import { startWebhookWorker, type RunningWebhookWorker } from '@cowrie/webhook-sender';
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
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

describe('attempts, TTL and webhooks: exactly as for sms', () => {
  let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
  let sender: RunningWebhookWorker;
  let receiver: HttpReceiver;
  let key: string;
  const TTL_SECONDS = 4;
  beforeAll(async () => {
    gw = await startVerificationGateway({ VERIFY_MAX_ATTEMPTS: '3', VERIFY_CODE_TTL_SECONDS: String(TTL_SECONDS), VERIFY_RATE_BIZ_LIMIT: '1000' });
    sender = await startWebhookWorker(gw.env.config, gw.env.logger);
    receiver = await startHttpReceiver();
    const signedIn = await signInNewWorkspace(gw, 'whatsapp events');
    key = signedIn.apiKey;
    const endpoint = await call(gw.url, 'POST', '/webhook-endpoints', {
      token: signedIn.token,
      body: { url: `${receiver.url}/events`, events: ['verification.failed', 'verification.expired'] },
    });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await sender?.stop();
    await receiver?.close();
    await gw?.close();
  });
  const start = (channel: string, destination: string) =>
    call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel, destination, code: '4444' } }).then((r) => r.body.data.reference as string);
  const check = (reference: string, code: string) => call(gw.url, 'POST', `/v1/verifications/${reference}/check`, { token: key, body: { code } });
  /** The delivered body of `event` for a verification. */
  const delivered = (event: string, reference: string) =>
    waitFor(() =>
      receiver.requests
        .map((r) => JSON.parse(r.rawBody.toString('utf8')) as { event: string; data: Record<string, unknown> })
        .find((b) => b.event === event && b.data.reference === reference),
    );

  test('three wrong checks fail a whatsapp code as they fail an sms one, and verification.failed says channel whatsapp', async () => {
    const outcomes: Record<string, unknown> = {};
    const events: Record<string, Record<string, unknown>> = {};
    for (const [channel, destination] of [
      ['sms', '+2348061110001'],
      ['whatsapp', '+2348061110002'],
    ] as const) {
      const reference = await start(channel, destination);
      const answers = [];
      for (const code of ['0000', '0001', '0002', '4444']) answers.push((await check(reference, code)).body.data);
      const read = (await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: key })).body.data;
      outcomes[channel] = { answers, status: read.status, attempts: read.attempts, max_attempts: read.max_attempts };
      const { data } = await delivered('verification.failed', reference);
      events[channel] = data;
      expect(data).toMatchObject({ reference, channel, destination: read.destination });
    }
    expect(outcomes.whatsapp).toEqual(outcomes.sms);
    expect(outcomes.whatsapp).toEqual({
      answers: [
        { status: 'failed', reason: 'invalid_code', attempts_remaining: 2 },
        { status: 'failed', reason: 'invalid_code', attempts_remaining: 1 },
        { status: 'failed', reason: 'invalid_code', attempts_remaining: 0 },
        { status: 'failed', reason: 'failed' },
      ],
      status: 'failed',
      attempts: 3,
      max_attempts: 3,
    });
    const sameBut = ({ reference: _r, channel: _c, destination: _d, ...rest }: Record<string, unknown>) => rest;
    expect(sameBut(events.whatsapp!)).toEqual(sameBut(events.sms!));
    expect(events.whatsapp).toMatchObject({ channel: 'whatsapp', status: 'failed', attempts: 3, verified_at: null, reason: 'invalid_code' });
  });

  test('a whatsapp code past its TTL expires at its check as an sms code does, and verification.expired says channel whatsapp', async () => {
    const sms = await start('sms', '+2348061110003');
    const whatsapp = await start('whatsapp', '+2348061110004');
    await new Promise((r) => setTimeout(r, TTL_SECONDS * 1000 + 100));
    for (const reference of [sms, whatsapp]) expect((await check(reference, '4444')).body.data).toEqual({ status: 'failed', reason: 'expired' });
    const [smsEvent, whatsappEvent] = await Promise.all([delivered('verification.expired', sms), delivered('verification.expired', whatsapp)]);
    expect(whatsappEvent.data).toMatchObject({ reference: whatsapp, channel: 'whatsapp', status: 'expired', attempts: 0, verified_at: null });
    expect(smsEvent.data).toMatchObject({ reference: sms, channel: 'sms', status: 'expired', attempts: 0, verified_at: null });
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
