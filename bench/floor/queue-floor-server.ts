// The `queue_floor` scenario's server: bare express with a JSON body, and one
// queue hop whose outcome the request waits for on its reply channel, as the
// gateway waits for a payout or a code's delivery (enqueueAndWait). No
// database, no key check, no business rule: what any synchronous answer that a
// worker gives costs in this architecture before its own work.
import express from 'express';
import { createRedis, enqueueAndWait, openJobReplies, openQueue } from '@cowrie/core';
import { floorQueue, floorConfig } from './queue';

const config = floorConfig();
const channel = {
  queue: openQueue(floorQueue, { connection: createRedis(config, { forBullmq: true }), prefix: config.QUEUE_PREFIX }),
  replies: openJobReplies(createRedis(config), config.QUEUE_PREFIX),
};
let n = 0;

const app = express();
app.get('/ready', (_req, res) => {
  res.json({ data: { ready: true } });
});
app.post('/hop', express.json(), async (_req, res) => {
  const id = n++;
  const run = await enqueueAndWait(channel, floorQueue, 'floor.hop', { n: id }, { jobId: `floor-${process.pid}-${id}`, waitMs: 10_000 });
  if (run.kind !== 'completed') res.status(503).json({ error: { code: 'unfinished', message: run.kind } });
  else res.status(201).json({ data: { id, status: 'completed' }, meta: { request_id: 'floor' } });
});
app.listen(Number(process.env.PORT), '127.0.0.1');

// Stopped with SIGTERM: exit normally, so a CPU profile (BENCH_CPU_PROF) is written.
process.on('SIGTERM', () => process.exit(0));
