// Risk: a long export waits for a slow client many times (backpressure), and
// each wait leaves listeners behind on the response: memory that grows with
// the export, and Node's MaxListenersExceededWarning.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { sendCsv } from '../src/http/respond';

test('an export that waits for a slow reader many times leaves no listener behind on the response', async () => {
  let waits = 0;
  let mostCloseListeners = 0;
  let mostErrorListeners = 0;
  let sent = 0;
  const app = express();
  app.get('/export', async (req, res) => {
    res.on('drain', () => (waits += 1));
    async function* rows() {
      for (let i = 0; i < 400; i++) {
        mostCloseListeners = Math.max(mostCloseListeners, res.listenerCount('close'));
        mostErrorListeners = Math.max(mostErrorListeners, res.listenerCount('error'));
        const line = `${i},${'x'.repeat(64 * 1024)}\r\n`;
        sent += line.length;
        yield line;
      }
    }
    await sendCsv(req, res, 'rows', rows());
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/export`);
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if ((chunks += 1) % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(bytes).toBe(sent);
    expect(waits).toBeGreaterThan(10);
    // Express and Node keep a few of their own; one wait's pair is gone once it is over.
    expect(mostCloseListeners).toBeLessThan(5);
    expect(mostErrorListeners).toBeLessThan(5);
  } finally {
    server.close();
  }
});
