// Risk: the WhatsApp adapter drifting from the Cloud API's documented send call
// (path, bearer token, authentication template with the code in the body and
// the copy-code button), or reporting a refused, rate-limited or hung send as
// delivered; a refusal's text carrying the code or the token.
import { startWhatsAppStandIn, type WhatsAppStandIn } from '../../testing';
import { DeliveryError } from '../../src/providers/types';
import { createWhatsAppProvider } from '../../src/providers/whatsapp';

let wa: WhatsAppStandIn;
const TOKEN = 'EAAJB-whatsapp-test-token';
beforeAll(async () => {
  wa = await startWhatsAppStandIn({
    accessToken: TOKEN,
    phoneNumberId: '105954558954427',
    templates: { verification_code: ['en_US'], paused_template: [] },
    notOnWhatsApp: ['2348099999999'],
  });
});
afterAll(() => wa.close());
beforeEach(() => {
  wa.reply = () => undefined;
});

const provider = (over: Partial<Parameters<typeof createWhatsAppProvider>[0]> = {}) =>
  createWhatsAppProvider({
    accessToken: TOKEN,
    baseUrl: `${wa.url}/`,
    phoneNumberId: '105954558954427',
    templateName: 'verification_code',
    templateLanguage: 'en_US',
    timeoutMs: 2000,
    ...over,
  });
const message = { channel: 'whatsapp' as const, destination: '+2348031234567', code: '482913', reference: 'r1', validForMinutes: 5 };

const failureOf = async (p: Promise<unknown>) => {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeliveryError);
  expect((err as Error).message).not.toMatch(/482913|EAAJB/);
  return (err as Error).message;
};

test('sends the authentication template: the code as the body parameter and the copy-code button, the number without +', async () => {
  const receipt = await provider().send(message);
  expect(receipt.providerReference).toMatch(/^wamid\./);
  const req = wa.requests.at(-1)!;
  expect(req.path).toBe('/105954558954427/messages');
  expect(req.authorization).toBe(`Bearer ${TOKEN}`);
  expect(req.body).toEqual({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: '2348031234567',
    type: 'template',
    template: {
      name: 'verification_code',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: '482913' }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '482913' }] },
      ],
    },
  });
  expect(wa.sent.at(-1)).toEqual({ id: receipt.providerReference, to: '2348031234567', code: '482913' });
});

test('a number that is not on WhatsApp (131026) says so', async () => {
  expect(await failureOf(provider().send({ ...message, destination: '+2348099999999' }))).toBe('the number is not on WhatsApp');
});

test.each([
  ['a template that does not exist', { templateName: 'no_such_template' }],
  ['a template not approved in the language', { templateName: 'paused_template' }],
])('%s (132001) is a refusal naming the template', async (_name, over) => {
  expect(await failureOf(provider(over).send(message))).toBe('whatsapp refused the template (132001: not found or not approved)');
});

test('rate limiting (130429) is a refusal naming the limit', async () => {
  wa.reply = () => ({ status: 429, code: 130429, message: 'Rate limit hit' });
  expect(await failureOf(provider().send(message))).toBe('whatsapp is rate limiting this sender (130429)');
});

test('an error text that echoes the code has it taken out before it is shortened: no part of it is left', async () => {
  // The code straddles the 120th character of the API's text.
  const echoed = `${'A'.repeat(117)}482913 was not sent`;
  wa.reply = () => ({ status: 400, code: 100, message: echoed });
  const text = await failureOf(provider().send(message));
  // The quote ends inside the placeholder; no digit of the code is before it.
  expect(text).toMatch(/A\[co\)$/);
  expect(text).not.toMatch(/A4|482/);
});

test('a bad token (190) is a refusal with the API status and code, never the token', async () => {
  expect(await failureOf(provider({ accessToken: 'wrong' }).send(message))).toBe('whatsapp answered 401 190 (Invalid OAuth access token)');
});

test('a hung request times out after one attempt', async () => {
  wa.reply = () => 'hang';
  const before = wa.requests.length;
  expect(await failureOf(provider({ timeoutMs: 300 }).send(message))).toMatch(/^whatsapp unreachable/);
  expect(wa.requests.length - before).toBe(1);
});

test('only whatsapp codes', async () => {
  await failureOf(provider().send({ ...message, channel: 'sms' }));
});
