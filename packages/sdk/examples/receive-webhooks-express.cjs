// Receives Cowrie's signed webhooks with Express (CommonJS) and @cowrie/sdk,
// reading the raw body: 204 to a delivery whose X-Cowrie-Signature verifies,
// 400 to anything else. The SDK's tests run it from the packed package against
// real deliveries. Needs `npm install express`.
//
//   COWRIE_WEBHOOK_SECRET  the secret shown when the webhook endpoint was created
//   PORT                   where to listen (default 4000)
//
// Prints `listening`, then one JSON line per verified event.
const express = require('express');
const { verifyWebhookSignature } = require('@cowrie/sdk');

const app = express();
app.post('/webhooks/cowrie', express.raw({ type: 'application/json' }), (req, res) => {
  if (!verifyWebhookSignature({ rawBody: req.body, header: req.get('X-Cowrie-Signature'), secret: process.env.COWRIE_WEBHOOK_SECRET })) {
    return res.status(400).end();
  }
  res.status(204).end();
  const event = JSON.parse(req.body.toString('utf8'));
  console.log(JSON.stringify({ id: event.id, event: event.event }));
});
app.listen(Number(process.env.PORT ?? 4000), () => console.log('listening'));
