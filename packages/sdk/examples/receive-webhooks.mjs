// Receives Cowrie's signed webhooks with node:http (ESM) and @cowrie/sdk: 204
// to a delivery whose X-Cowrie-Signature verifies, 400 to anything else. The
// SDK's tests run it from the packed package against real deliveries.
//
//   COWRIE_WEBHOOK_SECRET  the secret shown when the webhook endpoint was created
//   PORT                   where to listen (default 4000)
//
// Prints `listening`, then one JSON line per verified event.
import { createServer } from 'node:http';
import { verifyWebhookSignature } from '@cowrie/sdk';

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    const secret = process.env.COWRIE_WEBHOOK_SECRET; // shown once when the endpoint was created
    if (!verifyWebhookSignature({ rawBody, header: req.headers['x-cowrie-signature'], secret })) return res.writeHead(400).end();
    res.writeHead(204).end();
    const event = JSON.parse(rawBody.toString('utf8')); // de-duplicate on event.id, then act on event.event / event.data
    console.log(JSON.stringify({ id: event.id, event: event.event }));
  });
}).listen(Number(process.env.PORT ?? 4000), () => console.log('listening'));
