// Risk: the dashboard's verification pages showing a code, an unmasked
// destination or another workspace's verifications; a list that cannot be
// paged or filtered.
import { call, signInNewWorkspace } from '@cowrie/gateway/testing';
import { startVerificationGateway } from './start-verification-gateway';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let a: Awaited<ReturnType<typeof signInNewWorkspace>>;
let b: Awaited<ReturnType<typeof signInNewWorkspace>>;

beforeAll(async () => {
  gw = await startVerificationGateway({ VERIFY_RATE_DEST_LIMIT: '100', VERIFY_RATE_BIZ_LIMIT: '100' });
  a = await signInNewWorkspace(gw, 'Verifications A');
  b = await signInNewWorkspace(gw, 'Verifications B');
});
afterAll(() => gw.close());

const start = (apiKey: string, body: Record<string, string>) => call(gw.url, 'POST', '/v1/verifications', { token: apiKey, body });

test('a session lists its verifications newest first, paged and filtered, masked and without a code; one reads as /v1 shows it', async () => {
  const sms = await start(a.apiKey, { channel: 'sms', destination: '+2348012345678' });
  const email = await start(a.apiKey, { channel: 'email', destination: 'ada.lovelace@example.com' });
  const voice = await start(a.apiKey, { channel: 'voice', destination: '+2348098765432' });
  expect([sms.status, email.status, voice.status]).toEqual([201, 201, 201]);
  await start(b.apiKey, { channel: 'email', destination: 'b@example.com' });

  const list = (query = '', token = a.token) => call(gw.url, 'GET', `/verifications${query}`, { token });
  const all = await list();
  expect(all.status).toBe(200);
  expect(all.body.data.map((v: { reference: string }) => v.reference)).toEqual([voice, email, sms].map((r) => r.body.data.reference));
  expect(all.body.data[1]).toMatchObject({ channel: 'email', destination: 'a**********e@example.com', attempts: 0, max_attempts: expect.any(Number) });
  expect(JSON.stringify(all.body)).not.toMatch(/ada\.lovelace|8012345678|code|hash|salt|metadata/i);

  const first = await list('?limit=2');
  expect(first.body.data).toHaveLength(2);
  const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`);
  expect(second.body.data.map((v: { reference: string }) => v.reference)).toEqual([sms.body.data.reference]);
  expect(second.body.meta.next_cursor).toBeNull();
  expect((await list('?channel=email')).body.data.map((v: { channel: string }) => v.channel)).toEqual(['email']);
  expect((await list('?status=verified')).body.data).toEqual([]);

  const one = await call(gw.url, 'GET', `/verifications/${email.body.data.reference}`, { token: a.token });
  const viaApi = await call(gw.url, 'GET', `/v1/verifications/${email.body.data.reference}`, { token: a.apiKey });
  expect(one.status).toBe(200);
  // The /v1 record, and the delivery report (none from the sandbox).
  expect(one.body.data).toEqual({ ...viaApi.body.data, delivery_status: null, delivery_reported_at: null });

  for (const bad of ['?status=lost', '?channel=fax', '?cursor=nonsense', '?limit=0']) {
    const res = await list(bad);
    expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'invalid_request']);
  }
});

test("a user of workspace B sees none of A's verifications; API keys do not open the session routes", async () => {
  const ofA = await start(a.apiKey, { channel: 'email', destination: 'private@example.com' });
  const listedByB = await call(gw.url, 'GET', '/verifications?limit=100', { token: b.token });
  expect(listedByB.body.data.map((v: { reference: string }) => v.reference)).not.toContain(ofA.body.data.reference);
  const readByB = await call(gw.url, 'GET', `/verifications/${ofA.body.data.reference}`, { token: b.token });
  expect([readByB.status, readByB.body.error.code]).toEqual([404, 'not_found']);
  expect((await call(gw.url, 'GET', '/verifications/not-a-reference', { token: a.token })).status).toBe(404);
  expect((await call(gw.url, 'GET', '/verifications', { token: a.apiKey })).status).toBe(401);
});
