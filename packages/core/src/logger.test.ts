import { Writable } from 'node:stream';
import { createLogger } from './logger';

test('secrets are redacted from log lines', () => {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _e, cb) { lines.push(String(chunk)); cb(); } });
  const log = createLogger({ service: 'test', destination });
  log.info({ authorization: 'Bearer ck_live_secret', password: 'hunter22', code: '4321', secret: 'a'.repeat(64), apiKey: 'ck_x' }, 'top level');
  log.info({ body: { password: 'hunter22', code: '4321' }, req: { headers: { authorization: 'Bearer ck_live_secret' } } }, 'nested');
  const text = lines.join('');
  for (const secret of ['ck_live_secret', 'hunter22', '4321', 'a'.repeat(64), 'ck_x']) expect(text).not.toContain(secret);
  expect(text).toContain('[redacted]');
  expect(JSON.parse(lines[0]!).service).toBe('test');
});
