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

test('errors keep their codes (as errorCode), their causes too, while a one-time code stays redacted', () => {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _e, cb) { lines.push(String(chunk)); cb(); } });
  const log = createLogger({ service: 'test', destination });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const unique = Object.assign(new Error('duplicate key', { cause: refused }), { code: '23505' });
  log.error({ err: unique, code: '4321' }, 'failed');
  const line = JSON.parse(lines[0]!);
  expect(line.err.errorCode).toBe('23505');
  expect(line.err.cause.errorCode).toBe('ECONNREFUSED');
  expect(line.code).toBe('[redacted]');
  expect(lines[0]).not.toContain('4321');
});
