import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it reached the stand-in. */
export interface WhatsAppRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** What the stand-in does with one send beyond its rules: answer normally, fail with a status and Graph error code, or hang. */
export type WhatsAppReply = { status: number; code: number; message: string } | 'hang' | undefined;

export interface WhatsAppStandInOptions {
  accessToken: string;
  phoneNumberId: string;
  /** Templates approved on the account (name → languages). */
  templates: Record<string, string[]>;
  /** Numbers (digits, no +) that are not on WhatsApp: the send is refused at once (400, code 131026). */
  notOnWhatsApp?: string[];
  /**
   * Numbers (digits, no +) that are not on WhatsApp the way the Cloud API
   * usually tells it: the send is accepted (200, a wamid), then a `failed`
   * status callback with error 131026 is posted to `statusCallbacks`.
   */
  undeliverableAfterAccepting?: string[];
}

/** Where the stand-in posts its status callbacks (the app's webhook), signed with the app secret. */
export interface WhatsAppCallbackTarget {
  url: string;
  appSecret: string;
}

export interface WhatsAppStandIn {
  url: string;
  requests: WhatsAppRequest[];
  /** Messages accepted: the wamid and what it carried. */
  sent: Array<{ id: string; to: string; code: string }>;
  /** Overrides the rules for the next sends (e.g. rate limiting). */
  reply: (req: WhatsAppRequest) => WhatsAppReply;
  /** Set once the receiver listens; without it, no status callback is posted. */
  statusCallbacks?: WhatsAppCallbackTarget;
  /** The status callbacks posted, with the receiver's HTTP status (or the error). */
  callbacks: Array<{ messageId: string; status: 'failed'; answered: number | string }>;
  close(): Promise<void>;
}

const readJson = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      try {
        resolve(raw ? (JSON.parse(raw) as Record<string, unknown>) : {});
      } catch {
        resolve({});
      }
    });
  });

/** A Graph API error answer, as the Cloud API documents it. */
const graphError = (code: number, message: string) => ({
  error: { message, type: 'OAuthException', code, error_data: { messaging_product: 'whatsapp', details: message }, fbtrace_id: randomBytes(8).toString('hex') },
});

interface TemplateBody {
  messaging_product?: string;
  to?: string;
  type?: string;
  template?: {
    name?: string;
    language?: { code?: string };
    components?: Array<{ type?: string; sub_type?: string; index?: string | number; parameters?: Array<{ type?: string; text?: string }> }>;
  };
}

/**
 * A local stand-in of the WhatsApp Business Cloud API's send call
 * (`POST /{phone-number-id}/messages`) on 127.0.0.1. It holds the rules the
 * documentation gives: a bearer token (401, code 190), a template that exists
 * and is approved in the language asked (404, code 132001), an authentication
 * template carrying the same code as its body parameter and its copy-code
 * button's (400, code 131008 otherwise), a recipient on WhatsApp (400, code
 * 131026 "Message undeliverable", or, for `undeliverableAfterAccepting`, a
 * 200 followed by a `failed` status callback with 131026); `reply` adds rate
 * limiting (130429) or a hang.
 */
export async function startWhatsAppStandIn(options: WhatsAppStandInOptions): Promise<WhatsAppStandIn> {
  const standIn: WhatsAppStandIn = {
    url: '',
    requests: [],
    sent: [],
    reply: () => undefined,
    callbacks: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const answer = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const entry: WhatsAppRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body: await readJson(req) };
      standIn.requests.push(entry);
      if (entry.method !== 'POST' || entry.path !== `/${options.phoneNumberId}/messages`) return answer(res, 400, graphError(100, 'Unsupported post request'));
      if (entry.authorization !== `Bearer ${options.accessToken}`) return answer(res, 401, graphError(190, 'Invalid OAuth access token'));
      const planned = standIn.reply(entry);
      if (planned === 'hang') return;
      if (planned) return answer(res, planned.status, graphError(planned.code, planned.message));
      const body = entry.body as TemplateBody;
      if (body.messaging_product !== 'whatsapp' || body.type !== 'template' || !body.to || !/^\d{8,15}$/.test(body.to)) {
        return answer(res, 400, graphError(100, 'Invalid parameter'));
      }
      const languages = options.templates[body.template?.name ?? ''];
      if (!languages || !languages.includes(body.template?.language?.code ?? '')) {
        return answer(res, 404, graphError(132001, 'Template name does not exist in the translation'));
      }
      const components = body.template?.components ?? [];
      const bodyCode = components.find((c) => c.type === 'body')?.parameters?.[0]?.text;
      const button = components.find((c) => c.type === 'button');
      const buttonCode = button?.parameters?.[0]?.text;
      if (!bodyCode || button?.sub_type !== 'url' || String(button.index) !== '0' || buttonCode !== bodyCode || bodyCode.length > 15) {
        return answer(res, 400, graphError(131008, 'Required parameter is missing'));
      }
      if (options.notOnWhatsApp?.includes(body.to)) return answer(res, 400, graphError(131026, 'Message undeliverable'));
      const id = `wamid.${randomBytes(12).toString('base64url')}`;
      standIn.sent.push({ id, to: body.to, code: bodyCode });
      answer(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id, message_status: 'accepted' }] });
      if (options.undeliverableAfterAccepting?.includes(body.to)) reportFailed(id, body.to);
    })().catch(() => res.destroy());
  });
  /** The failed status callback of an accepted message, posted after the send's answer as the Cloud API does. */
  const reportFailed = (messageId: string, recipient: string) => {
    const target = standIn.statusCallbacks;
    if (!target) return;
    const raw = JSON.stringify(
      whatsAppStatusCallback({
        messageId,
        status: 'failed',
        recipient,
        timestamp: Math.floor(Date.now() / 1000),
        phoneNumberId: options.phoneNumberId,
        errorCode: 131026,
      }),
    );
    const record = (answered: number | string) => standIn.callbacks.push({ messageId, status: 'failed', answered });
    setTimeout(() => {
      fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsAppPayload(raw, target.appSecret) },
        body: raw,
      })
        .then((r) => record(r.status))
        .catch((err: unknown) => record(String(err)));
    }, 50);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

/** A status callback as the Cloud API posts it to the app's webhook (`statuses[]` of a `messages` change). */
export function whatsAppStatusCallback(input: {
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipient: string;
  timestamp: number;
  phoneNumberId: string;
  errorCode?: number;
}) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: input.phoneNumberId },
              statuses: [
                {
                  id: input.messageId,
                  status: input.status,
                  timestamp: String(input.timestamp),
                  recipient_id: input.recipient,
                  ...(input.errorCode ? { errors: [{ code: input.errorCode, title: 'Message undeliverable' }] } : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** X-Hub-Signature-256 of a raw body: `sha256=` and the hex HMAC-SHA256 keyed with the app secret. */
export const signWhatsAppPayload = (raw: string, appSecret: string) => `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
