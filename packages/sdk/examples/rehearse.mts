// Rehearses an integration with a test key (ck_test_) and @cowrie/sdk alone:
// a payer's deposit, a verification, a payout the bank returns, and a sample
// of every webhook event, each received and verified by this script's own
// webhook receiver. No database, CLI or bank needed: the test helpers make on
// the sandbox what a payer, a phone or a bank would. The test wallet may
// start empty: the deposit pays for the payout. The SDK's tests compile this
// file against the packed package and run it against a real gateway.
//
//   COWRIE_URL             the gateway, e.g. http://127.0.0.1:3000
//   COWRIE_API_KEY         a test key (ck_test_…) with every scope
//   COWRIE_WEBHOOK_SECRET  the secret of the test-mode webhook endpoint for
//                          http://127.0.0.1:<PORT>/webhooks/cowrie
//   PORT                   where this script receives webhooks (default 4000)
import { createServer } from 'node:http';
import { CowrieApiError, CowrieClient, CowrieWebhookError, constructEvent, type RequestBody, type WebhookEvent } from '@cowrie/sdk';

const cowrie = new CowrieClient({ baseUrl: process.env.COWRIE_URL!, apiKey: process.env.COWRIE_API_KEY! });
const secret = process.env.COWRIE_WEBHOOK_SECRET!;

// The events the rehearsal triggers: every one the test helper sends.
const EVENTS = [
  'transfer.completed',
  'transfer.failed',
  'transfer.reversed',
  'collection.successful',
  'collection.expired',
  'reserved_account.created',
  'verification.verified',
  'verification.failed',
  'verification.expired',
  'webhook_endpoint.disabled',
] as const satisfies ReadonlyArray<RequestBody<'testTriggerWebhook'>['event']>;

const received: WebhookEvent[] = [];
const waits = new Set<() => void>();

// The receiver: constructEvent verifies the signature over the raw bytes
// (X-Cowrie-Signature or the Standard Webhooks headers), checks its time and
// returns the event, typed by its name; anything else throws.
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let event: WebhookEvent;
    try {
      event = constructEvent(Buffer.concat(chunks), req.headers, secret);
    } catch (err) {
      if (!(err instanceof CowrieWebhookError)) throw err;
      res.writeHead(400).end(err.reason);
      return;
    }
    res.writeHead(204).end();
    received.push(event);
    for (const wake of waits) wake();
  });
});

/** The first verified event `match` accepts; rejects after `timeoutMs`. */
function eventWhere(match: (event: WebhookEvent) => boolean, timeoutMs = 20_000): Promise<WebhookEvent> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const event = received.find(match);
      if (!event) return;
      waits.delete(check);
      clearTimeout(timer);
      resolve(event);
    };
    const timer = setTimeout(() => {
      waits.delete(check);
      reject(new Error(`no matching webhook within ${timeoutMs} ms`));
    }, timeoutMs);
    waits.add(check);
    check();
  });
}

/** What a handler does with each event: `event.data` is typed by `event.event`. */
function describe(event: WebhookEvent): string {
  switch (event.event) {
    case 'collection.successful':
      return `${event.data.amount} ${event.data.currency} into ${event.data.account_number}`;
    case 'transfer.completed':
    case 'transfer.failed':
    case 'transfer.reversed':
      return `${event.data.reference} ${event.data.status}`;
    case 'verification.verified':
    case 'verification.failed':
    case 'verification.expired':
      return `${event.data.reference} ${event.data.status}`;
    default:
      // An event this version of the SDK does not know, or one this handler ignores.
      return event.event;
  }
}

async function rehearse() {
  // A deposit: a payer's bank transfer into a reserved account.
  const account = await cowrie.reservedAccounts.create({ customer_name: 'Ada Obi', customer_email: 'ada@example.com' });
  await cowrie.testHelpers.transferIn({ account_number: account.account.account_number, amount: 5000 });
  const deposit = await eventWhere((e) => e.event === 'collection.successful' && e.data.account_number === account.account.account_number);

  // A verification: the code the sandbox sent, read back and checked.
  const started = await cowrie.verifications.start({ channel: 'sms', destination: '+2348012345678' });
  const { code } = await cowrie.testHelpers.verificationCode(started.reference);
  const checked = await cowrie.verifications.check(started.reference, code);
  const verified = await eventWhere((e) => e.event === 'verification.verified' && e.data.reference === started.reference);

  // A reversal: a completed payout the bank then returns.
  const sent = await cowrie.transfers.create({ currency: 'NGN', amount: 1500, account_number: '0123456789', bank_code: '058' });
  await cowrie.testHelpers.reverseTransfer(sent.reference);
  const reversed = await eventWhere((e) => e.event === 'transfer.reversed' && e.data.reference === sent.reference);

  // A sample of every event, each to the test endpoints subscribed to it.
  const since = received.length;
  for (const event of EVENTS) await cowrie.testHelpers.triggerWebhook(event);
  await Promise.all(EVENTS.map((name) => eventWhere((e) => received.indexOf(e) >= since && e.event === name)));

  // Every transaction, the SDK following the cursor page by page; or the first few.
  const statuses: string[] = [];
  for await (const transaction of cowrie.transactions.list({ limit: 1 })) statuses.push(transaction.status);
  const latest = await cowrie.transactions.list().toArray({ limit: 2 });

  // An error's code types its details.
  let refused = '';
  try {
    await cowrie.transfers.create({ currency: 'NGN', amount: 10_000_000, account_number: '0123456789', bank_code: '058' });
  } catch (err) {
    if (!(err instanceof CowrieApiError)) throw err;
    if (err.code === 'rate_limited') await new Promise((r) => setTimeout(r, (err.details?.retry_after_seconds ?? 1) * 1000));
    refused = `${err.code}: ${err.message}`;
  }

  return {
    deposit: describe(deposit),
    verification: [checked.status, describe(verified)],
    reversal: describe(reversed),
    triggered: received.slice(since).map((e) => e.event),
    transactions: { all: statuses, latest: latest.map((t) => t.reference) },
    refused,
  };
}

async function main() {
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', resolve));
  try {
    console.log(JSON.stringify(await rehearse()));
  } catch (err) {
    console.error(err instanceof CowrieApiError ? `${err.code} (HTTP ${err.status}, request ${err.requestId}): ${err.message}` : err);
    process.exitCode = 1;
  } finally {
    server.close();
  }
}

void main();
