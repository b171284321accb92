// Pays a bank account with @cowrie/sdk and receives the signed webhook that
// reports the outcome. Plain Node (ESM); pay-and-receive.cjs is the same with
// require(). The SDK's tests run both from the packed package.
//
//   COWRIE_URL             the gateway, e.g. http://127.0.0.1:3000
//   COWRIE_API_KEY         an API key of the workspace that pays
//   COWRIE_WEBHOOK_SECRET  the secret shown when the workspace's webhook endpoint
//                          for http://127.0.0.1:<PORT>/webhooks/cowrie was created
//   PORT                   where this script receives webhooks (default 4000)
import { createServer } from 'node:http';
import { CowrieApiError, CowrieClient, verifyWebhookSignature } from '@cowrie/sdk';

const cowrie = new CowrieClient({ baseUrl: process.env.COWRIE_URL, apiKey: process.env.COWRIE_API_KEY });
const secret = process.env.COWRIE_WEBHOOK_SECRET;

// Verified events, and the waits for one of them.
const events = [];
const waits = [];

// The receiver: verify the signature over the raw bytes before reading the
// event, answer 2xx at once (anything else is retried), then act on it.
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    if (!verifyWebhookSignature({ rawBody, header: req.headers['x-cowrie-signature'], secret })) {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end();
    events.push(JSON.parse(rawBody.toString('utf8')));
    for (const wait of waits) wait();
  });
});

/** The first verified event that `match` accepts; rejects after `timeoutMs`. */
function eventWhere(match, timeoutMs = 20_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching webhook within ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      const event = events.find(match);
      if (!event) return;
      clearTimeout(timer);
      resolve(event);
    };
    waits.push(check);
    check();
  });
}

/** Pays `body`, or says why the API refused it. */
async function payOrExplain(body) {
  try {
    return await cowrie.transfers.create(body);
  } catch (err) {
    if (err instanceof CowrieApiError && err.code === 'invalid_request') return `${err.details?.field}: ${err.message}`;
    throw err;
  }
}

await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', resolve));
try {
  const [wallet] = await cowrie.balances.list();
  // One Idempotency-Key for this payment and all its retries: it is never paid twice.
  const transfer = await cowrie.transfers.create({ currency: 'NGN', amount: 1500, account_number: '0123456789', bank_code: '058' });
  const event = await eventWhere((e) => e.event.startsWith('transfer.') && e.data.id === transfer.id);

  // A payment retried later by hand, after the SDK gave up: the same body and the stored key find the first payment.
  const body = { currency: 'NGN', amount: 200, account_number: '0444444444', bank_code: '058' };
  const key = crypto.randomUUID(); // store it with your order
  const paid = await cowrie.transfers.create(body, { idempotencyKey: key });
  const retried = await cowrie.transfers.create(body, { idempotencyKey: key });

  // A refusal carries the API's code and, for an invalid_request, the field at fault.
  const refused = await payOrExplain({ ...body, amount: 'x' });
  console.log(
    JSON.stringify({
      available: wallet.available,
      transfer: { id: transfer.id, status: transfer.status },
      event: { id: event.id, event: event.event },
      retried: { paid: paid.id, retried: retried.id },
      refused,
    }),
  );
} catch (err) {
  // API errors carry the API's code and the request id to quote to support.
  if (err instanceof CowrieApiError) console.error(`${err.code} (HTTP ${err.status}, request ${err.requestId}): ${err.message}`);
  else console.error(err);
  process.exitCode = 1;
} finally {
  server.close();
}
