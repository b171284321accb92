// got is ESM-only: loaded through require when a WhatsApp provider is built (see termii.ts).
type GotModule = typeof import('got', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadGot = () => require('got') as GotModule;
import { DeliveryError, quoteProviderText, type DeliveryProvider, type CodeMessage, type DeliveryReceipt } from './types';

export interface WhatsAppProviderOptions {
  /** A system user's access token with whatsapp_business_messaging. */
  accessToken: string;
  /** The Graph API with its version, e.g. https://graph.facebook.com/v21.0 */
  baseUrl: string;
  /** The id of the business phone number the codes are sent from. */
  phoneNumberId: string;
  /** An approved authentication template with a copy-code button. */
  templateName: string;
  templateLanguage: string;
  timeoutMs: number;
}

/** The Cloud API's error body (Graph API errors). */
interface GraphError {
  error?: { message?: string; type?: string; code?: number; error_data?: { details?: string } };
}

interface SendResponse {
  messages?: Array<{ id?: string; message_status?: string }>;
}

/** Codes the Cloud API answers when the recipient cannot get the message: not on WhatsApp, or unable to take it. */
const NOT_ON_WHATSAPP = new Set([131026, 1026]);
/** The template is missing, not approved in this language, or paused. */
const TEMPLATE_PROBLEMS = new Set([132000, 132001, 132005, 132007, 132015, 132016]);
/** Throughput and pair rate limits, spam limits. */
const RATE_LIMITED = new Set([4, 80007, 130429, 131048, 131056]);

/** Why a send failed, in words a client may read (never the code or the token). */
function explain(status: number, body: unknown, sentCode: string): string {
  const error = parseError(body);
  const code = error?.code;
  if (code !== undefined && NOT_ON_WHATSAPP.has(code)) return 'the number is not on WhatsApp';
  if (code !== undefined && TEMPLATE_PROBLEMS.has(code)) return `whatsapp refused the template (${code}: not found or not approved)`;
  if (code !== undefined && RATE_LIMITED.has(code)) return `whatsapp is rate limiting this sender (${code})`;
  const text = error?.message ? ` (${quoteProviderText(error.message, sentCode)})` : '';
  return `whatsapp answered ${status}${code === undefined ? '' : ` ${code}`}${text}`;
}

function parseError(body: unknown): GraphError['error'] {
  try {
    const parsed = (typeof body === 'string' ? JSON.parse(body) : body) as GraphError;
    return parsed?.error;
  } catch {
    return undefined;
  }
}

/**
 * WhatsApp codes through the WhatsApp Business Cloud API's documented send
 * call: `POST /{phone-number-id}/messages` with an authentication template,
 * the code as the body's parameter and as the copy-code button's
 * (`sub_type: url`, index 0). The answer's message id (`wamid…`) is kept as
 * the provider reference, which the status callbacks name.
 */
export function createWhatsAppProvider(opts: WhatsAppProviderOptions): DeliveryProvider {
  const { default: got, HTTPError, RequestError } = loadGot();
  const client = got.extend({
    prefixUrl: opts.baseUrl.replace(/\/+$/, ''),
    timeout: { request: opts.timeoutMs },
    // One attempt: a retried POST could send the code twice.
    retry: { limit: 0 },
    headers: { accept: 'application/json', authorization: `Bearer ${opts.accessToken}` },
  });
  return {
    id: 'whatsapp_cloud',
    async send(message: CodeMessage): Promise<DeliveryReceipt> {
      if (message.channel !== 'whatsapp') throw new DeliveryError(`the whatsapp provider cannot deliver ${message.channel} codes`);
      const code = [{ type: 'text', text: message.code }];
      try {
        const res = await client
          .post(`${encodeURIComponent(opts.phoneNumberId)}/messages`, {
            json: {
              messaging_product: 'whatsapp',
              recipient_type: 'individual',
              to: message.destination.replace(/^\+/, ''),
              type: 'template',
              template: {
                name: opts.templateName,
                language: { code: opts.templateLanguage },
                components: [
                  { type: 'body', parameters: code },
                  { type: 'button', sub_type: 'url', index: '0', parameters: code },
                ],
              },
            },
          })
          .json<SendResponse>();
        const id = res.messages?.[0]?.id;
        if (!id) throw new DeliveryError('whatsapp returned no message id');
        return { providerReference: id };
      } catch (err) {
        if (err instanceof DeliveryError) throw err;
        if (err instanceof HTTPError) throw new DeliveryError(explain(err.response.statusCode, err.response.body, message.code), { cause: err });
        if (err instanceof RequestError) throw new DeliveryError(`whatsapp unreachable (${err.code})`, { cause: err });
        throw new DeliveryError('whatsapp returned an unreadable answer', { cause: err });
      }
    },
  };
}
