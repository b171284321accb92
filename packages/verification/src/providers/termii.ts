// got 16 is ESM-only: its types resolve only in ESM resolution mode, and
// Node (>= 20.19) and Jest's transform both load it through require. It is
// loaded when a Termii provider is built, so deployments without one never do.
type GotModule = typeof import('got', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadGot = () => require('got') as GotModule;
import { codeText, DeliveryError, quoteProviderText, type DeliveryProvider, type CodeMessage, type DeliveryReceipt } from './types';

export interface TermiiProviderOptions {
  apiKey: string;
  /** e.g. https://api.ng.termii.com */
  baseUrl: string;
  senderId: string;
  /** sms route: generic, or dnd */
  smsChannel: 'generic' | 'dnd';
  timeoutMs: number;
}

interface TermiiResponse {
  code?: string;
  message_id?: string | number;
  message?: string;
}

/**
 * SMS and voice codes through Termii's documented API: sms by
 * `POST /api/sms/send` ({api_key, to, from, sms, type, channel}); voice by
 * `POST /api/sms/otp/call` ({api_key, phone_number, code}), which reads our own
 * code out in a call. Numbers go in international format without the `+`.
 */
export function createTermiiProvider(opts: TermiiProviderOptions): DeliveryProvider {
  const { default: got, HTTPError, RequestError } = loadGot();
  const client = got.extend({
    prefixUrl: opts.baseUrl.replace(/\/+$/, ''),
    timeout: { request: opts.timeoutMs },
    // One attempt: the worker reports the outcome to a waiting client, and a
    // retried POST could send the code twice.
    retry: { limit: 0 },
    headers: { accept: 'application/json' },
  });

  /** Sends `body`, which carries `code`: Termii's words in an error are quoted without it. */
  async function post(path: string, body: Record<string, unknown>, code: string): Promise<TermiiResponse> {
    try {
      const res = await client.post(path, { json: body }).json<TermiiResponse>();
      if (res.code !== undefined && res.code !== 'ok') {
        throw new DeliveryError(`termii refused the message (${quoteProviderText(String(res.message ?? res.code), code)})`);
      }
      return res;
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      if (err instanceof HTTPError) {
        const reason = termiiMessage(err.response.body, code);
        throw new DeliveryError(`termii answered ${err.response.statusCode}${reason ? ` (${reason})` : ''}`, { cause: err });
      }
      if (err instanceof RequestError) throw new DeliveryError(`termii unreachable (${err.code})`, { cause: err });
      throw new DeliveryError('termii returned an unreadable answer', { cause: err });
    }
  }

  return {
    id: 'termii',
    async send(message: CodeMessage): Promise<DeliveryReceipt> {
      const number = message.destination.replace(/^\+/, '');
      if (message.channel === 'sms') {
        const res = await post(
          'api/sms/send',
          {
            api_key: opts.apiKey,
            to: number,
            from: opts.senderId,
            sms: codeText(message),
            type: 'plain',
            channel: opts.smsChannel,
          },
          message.code,
        );
        return { providerReference: res.message_id === undefined ? undefined : String(res.message_id) };
      }
      if (message.channel === 'voice') {
        // Termii documents `code` as numeric; a code with a leading zero would lose
        // it as a number, so such a code goes as a digit string.
        const code = message.code.startsWith('0') ? message.code : Number(message.code);
        const res = await post('api/sms/otp/call', { api_key: opts.apiKey, phone_number: number, code }, message.code);
        return { providerReference: res.message_id === undefined ? undefined : String(res.message_id) };
      }
      throw new DeliveryError(`the termii provider cannot deliver ${message.channel} codes`);
    },
  };
}

/** Termii's error text from a response body, without the code and shortened; never the request. */
function termiiMessage(body: unknown, code: string): string | undefined {
  try {
    const parsed = typeof body === 'string' ? (JSON.parse(body) as TermiiResponse) : (body as TermiiResponse);
    return typeof parsed?.message === 'string' ? quoteProviderText(parsed.message, code) : undefined;
  } catch {
    return undefined;
  }
}
