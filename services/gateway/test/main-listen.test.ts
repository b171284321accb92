// Risk: a gateway whose port is taken logs "gateway listening" and runs on,
// serving nothing: the process looks alive to whatever watches it while no
// request reaches it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProcess, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.cleanup();
});

test('the compiled gateway exits 1 with a fatal line naming the address when it cannot listen', async () => {
  const holder = http.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as AddressInfo;
  const gateway = startProcess({
    entry: 'gateway',
    env: {
      LOG_FORMAT: 'json',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL!,
      QUEUE_PREFIX: env.config.QUEUE_PREFIX,
      REDIS_KEY_PREFIX: env.config.REDIS_KEY_PREFIX,
    },
  });
  try {
    const code = await Promise.race([gateway.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(code).toBe(1);
    const lines = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; port?: number });
    expect(lines.map((line) => line.msg)).not.toContain('gateway listening');
    expect(lines).toContainEqual(expect.objectContaining({ level: 60, msg: 'gateway could not listen', port }));
  } finally {
    await gateway.stop(0);
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  }
});
