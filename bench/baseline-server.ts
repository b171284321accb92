// The bare route the gateway is compared with: express, JSON, nothing else.
import express from 'express';

const app = express();
app.get('/bare', (_req, res) => {
  res.json({ data: [{ id: 'card', label: 'Card', status: 'coming_soon', currencies: ['NGN'] }], meta: { request_id: 'bare' } });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
