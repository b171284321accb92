// Risk: delivery reports (Termii's outbound-message events, WhatsApp's status
// callbacks) accepted without their signature, recorded on the wrong
// verification or changing its state, a report of an unknown message failing
// (the provider would resend it forever), or none of it reaching the dashboard
// and the metrics; a WhatsApp number that is not on WhatsApp, accepted by the
// Cloud API and reported failed later, never marked undelivered.
import { parseMetrics, sampleValue } from '@cowrie/metrics';
import {
  signWhatsAppPayload,
  startTermiiStandIn,
  startWhatsAppStandIn,
  termiiDeliveryReport,
  whatsAppStatusCallback,
  type TermiiStandIn,
  type WhatsAppStandIn,
} from '@cowrie/verification/testing';
import { waitFor } from '@cowrie/testing';
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

const TERMII_SECRET = 'termii-secret-key-for-reports';
const APP_SECRET = 'meta-app-secret-for-status-callbacks';
const VERIFY_TOKEN = 'subscribe-me-please';
const METRICS_TOKEN = 'metrics-token-for-report-tests-012345';
const PHONE_NUMBER_ID = '105954558954427';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let termii: TermiiStandIn;
let wa: WhatsAppStandIn;
let apiKey: string;
let session: string;

beforeAll(async () => {
  termii = await startTermiiStandIn();
  wa = await startWhatsAppStandIn({
    accessToken: 'EAAJB-reports',
    phoneNumberId: PHONE_NUMBER_ID,
    templates: { verification_code: ['en_US'] },
    undeliverableAfterAccepting: ['2348061239999'],
  });
  gw = await startVerificationGateway({
    VERIFY_SMS_PROVIDER: 'termii',
    VERIFY_TERMII_API_KEY: 'tk_reports',
    VERIFY_TERMII_BASE_URL: termii.url,
    VERIFY_TERMII_SECRET_KEY: TERMII_SECRET,
    VERIFY_WHATSAPP_PROVIDER: 'whatsapp_cloud',
    WHATSAPP_ACCESS_TOKEN: 'EAAJB-reports',
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_BASE_URL: wa.url,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    VERIFY_PROVIDER_TIMEOUT_MS: '2000',
    METRICS_TOKEN,
  });
  ({ apiKey, token: session } = await signInNewWorkspace(gw, 'reports'));
  wa.statusCallbacks = { url: `${gw.url}/rails/whatsapp/reports`, appSecret: APP_SECRET };
});
afterAll(async () => {
  await gw.close();
  await termii.close();
  await wa.close();
});

const start = async (channel: string, destination: string) => {
  const res = await call(gw.url, 'POST', '/v1/verifications', { token: apiKey, body: { channel, destination } });
  expect(res.status).toBe(201);
  return res.body.data.reference as string;
};
const dashboardRecord = async (reference: string) => (await call(gw.url, 'GET', `/verifications/${reference}`, { token: session })).body.data;
const postTermii = (raw: string, signature: string) =>
  call(gw.url, 'POST', '/rails/termii/reports', { rawBody: raw, headers: { 'content-type': 'application/json', 'x-termii-signature': signature } });
const postWhatsApp = (body: unknown, secret = APP_SECRET) => {
  const raw = JSON.stringify(body);
  return call(gw.url, 'POST', '/rails/whatsapp/reports', {
    rawBody: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsAppPayload(raw, secret) },
  });
};
const metric = async (labels: Record<string, string>) =>
  sampleValue(
    parseMetrics(await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()),
    'cowrie_verification_delivery_reports_total',
    labels,
  );

test('Termii: a signed Delivered report marks the sms delivered at its time; the verification stays pending; the public record is unchanged', async () => {
  const reference = await start('sms', '+2348061234567');
  const messageId = (await gw.env.db.verification.findFirstOrThrow({ where: { reference } })).providerReference!;
  expect(messageId).toMatch(/^m\d+$/);
  const report = termiiDeliveryReport(
    { messageId, receiver: '2348061234567', status: 'DELIVERED | Message delivered to handset', sentAt: '2026-11-27 10:00:05' },
    TERMII_SECRET,
  );
  const res = await postTermii(report.raw, report.signature);
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ received: true, recorded: 1, unknown: 0, ignored: 0 });
  expect(await dashboardRecord(reference)).toMatchObject({ status: 'pending', delivery_status: 'delivered', delivery_reported_at: '2026-11-27T10:00:05.000Z' });
  const record = (await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: apiKey })).body.data;
  expect(record).not.toHaveProperty('delivery_status');
  // A later failure report of the same message does not undo a receipt.
  const late = termiiDeliveryReport({ messageId, receiver: '2348061234567', status: 'Message Failed', sentAt: '2026-11-27 10:01:00' }, TERMII_SECRET);
  expect((await postTermii(late.raw, late.signature)).body.data.recorded).toBe(0);
  expect((await dashboardRecord(reference)).delivery_status).toBe('delivered');
  expect(await metric({ provider: 'termii', status: 'delivered' })).toBe(1);
});

test('Termii: DND is undelivered; Message Sent is not final and is ignored', async () => {
  const reference = await start('sms', '+2348061234568');
  const messageId = (await gw.env.db.verification.findFirstOrThrow({ where: { reference } })).providerReference!;
  const sent = termiiDeliveryReport({ messageId, receiver: '2348061234568', status: 'Message Sent', sentAt: '2026-11-27 10:00:00' }, TERMII_SECRET);
  expect((await postTermii(sent.raw, sent.signature)).body.data).toMatchObject({ recorded: 0, ignored: 1 });
  expect((await dashboardRecord(reference)).delivery_status).toBeNull();
  const dnd = termiiDeliveryReport(
    { messageId, receiver: '2348061234568', status: 'DND Active on Phone Number', sentAt: '2026-11-27 10:00:09' },
    TERMII_SECRET,
  );
  expect((await postTermii(dnd.raw, dnd.signature)).body.data.recorded).toBe(1);
  expect(await dashboardRecord(reference)).toMatchObject({ delivery_status: 'undelivered', delivery_reported_at: '2026-11-27T10:00:09.000Z' });
});

test('a report with a missing or wrong signature is 401 and changes nothing', async () => {
  const reference = await start('sms', '+2348061234569');
  const messageId = (await gw.env.db.verification.findFirstOrThrow({ where: { reference } })).providerReference!;
  const report = termiiDeliveryReport({ messageId, receiver: '2348061234569', status: 'Delivered', sentAt: '2026-11-27 10:00:00' }, 'not-the-secret');
  expect((await postTermii(report.raw, report.signature)).status).toBe(401);
  expect(
    (await postWhatsApp(whatsAppStatusCallback({ messageId, status: 'delivered', recipient: '1', timestamp: 1, phoneNumberId: PHONE_NUMBER_ID }), 'wrong'))
      .status,
  ).toBe(401);
  expect((await dashboardRecord(reference)).delivery_status).toBeNull();
});

test('a report for an unknown message is logged and acknowledged, nothing recorded', async () => {
  const report = termiiDeliveryReport({ messageId: '999999999', receiver: '2348061234560', status: 'Delivered', sentAt: '2026-11-27 10:00:00' }, TERMII_SECRET);
  const res = await postTermii(report.raw, report.signature);
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ received: true, recorded: 0, unknown: 1, ignored: 0 });
  expect(gw.env.logLines.some((l) => l.includes('delivery report for an unknown message ignored') && l.includes('999999999'))).toBe(true);
  expect(await metric({ provider: 'termii', status: 'unknown_message' })).toBe(1);
});

test('WhatsApp: the subscription handshake echoes the challenge only for the verify token', async () => {
  const ok = await fetch(`${gw.url}/rails/whatsapp/reports?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
  expect(ok.status).toBe(200);
  expect(await ok.text()).toBe('1158201444');
  expect((await fetch(`${gw.url}/rails/whatsapp/reports?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1`)).status).toBe(401);
});

test('WhatsApp: delivered and failed status callbacks are recorded on their verifications; sent is ignored', async () => {
  const delivered = await start('whatsapp', '+2348061230001');
  const failed = await start('whatsapp', '+2348061230002');
  const idOf = async (reference: string) => (await gw.env.db.verification.findFirstOrThrow({ where: { reference } })).providerReference!;
  const status = (messageId: string, s: 'sent' | 'delivered' | 'failed', timestamp: number, errorCode?: number) =>
    whatsAppStatusCallback({ messageId, status: s, recipient: '2348061230001', timestamp, phoneNumberId: PHONE_NUMBER_ID, errorCode });
  expect((await postWhatsApp(status(await idOf(delivered), 'sent', 1795600000))).body.data).toMatchObject({ recorded: 0, ignored: 1 });
  expect((await postWhatsApp(status(await idOf(delivered), 'delivered', 1795600003))).body.data.recorded).toBe(1);
  expect((await postWhatsApp(status(await idOf(failed), 'failed', 1795600004, 131026))).body.data.recorded).toBe(1);
  expect(await dashboardRecord(delivered)).toMatchObject({
    status: 'pending',
    delivery_status: 'delivered',
    delivery_reported_at: new Date(1795600003_000).toISOString(),
  });
  expect((await dashboardRecord(failed)).delivery_status).toBe('undelivered');
  expect(await metric({ provider: 'whatsapp_cloud', status: 'undelivered' })).toBe(1);
  // The dashboard's list shows them too.
  const list = await call(gw.url, 'GET', '/verifications?channel=whatsapp', { token: session });
  expect(list.body.data.map((v: { delivery_status: string }) => v.delivery_status).sort()).toEqual(['delivered', 'undelivered']);
});

test('WhatsApp accepts a send to a number not on WhatsApp and reports it failed later (131026): the start is 201, the delivery report marks it undelivered', async () => {
  const reference = await start('whatsapp', '+2348061239999');
  const row = await gw.env.db.verification.findFirstOrThrow({ where: { reference } });
  expect(row).toMatchObject({ provider: 'whatsapp_cloud', status: 'pending' });
  const callback = await waitFor(() => wa.callbacks.find((c) => c.messageId === row.providerReference));
  expect(callback.answered).toBe(200);
  expect(await dashboardRecord(reference)).toMatchObject({ status: 'pending', delivery_status: 'undelivered' });
  // The public record's state is unchanged: the code is never checked and expires at its TTL.
  expect((await call(gw.url, 'GET', `/v1/verifications/${reference}`, { token: apiKey })).body.data.status).toBe('pending');
});

test('WhatsApp: a signed callback of an unexpected shape is refused or acknowledged, never a 500; a time that is no time is the arrival', async () => {
  const reference = await start('whatsapp', '+2348061230001');
  const row = await gw.env.db.verification.findFirstOrThrow({ where: { reference } });
  const status = (s: Record<string, unknown>) => ({ entry: [{ changes: [{ value: { statuses: [{ id: row.providerReference, ...s }] } }] }] });
  for (const body of [
    { entry: [{ changes: [{ value: { statuses: { id: row.providerReference, status: 'delivered' } } }] }] },
    { entry: [{ changes: { value: {} } }] },
    { entry: [null, 7, 'x'] },
    status({ status: 'delivered', timestamp: '1e20' }),
    status({ status: 'delivered', timestamp: -5 }),
  ]) {
    const res = await postWhatsApp(body);
    expect([JSON.stringify(body).slice(0, 60), res.status < 500]).toEqual([JSON.stringify(body).slice(0, 60), true]);
  }
  // A time that is no time is the arrival's: recorded with a real date.
  const recorded = await gw.env.db.verification.findFirstOrThrow({ where: { reference } });
  expect(recorded.deliveryStatus).toBe('delivered');
  expect(Math.abs(recorded.deliveryReportedAt!.getTime() - Date.now())).toBeLessThan(60_000);
});
