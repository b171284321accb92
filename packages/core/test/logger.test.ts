import { Writable } from 'node:stream';
import { createLogger } from '../src/logger';

test('secrets are redacted from log lines', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
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
  const destination = new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
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

test('secrets are redacted at any depth, in child bindings and by shape in any string, including the message', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ service: 'test', destination });
  const apiKey = 'ck_live_0123456789abcdef_' + 'S'.repeat(43);
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXBhcnQ';
  log.child({ session: { token: 'child-token-value' } }).info(
    {
      a: { b: { c: { d: { password: 'deep-password', webhookSecret: 'deep-webhook-secret', x_api_key: 'deep-api-key' } } } },
      list: [{ headers: { Authorization: 'Basic b3BzOnBhc3N3b3Jk' } }, { note: `called with ${apiKey}` }],
      env: {
        JWT_SECRET: 'jwt-secret-value',
        ENCRYPTION_KEY: 'e'.repeat(64),
        VERIFY_TERMII_API_KEY: 'termii-key',
        OPS_PASSWORD: 'ops-password-value',
        REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
      },
      databaseUrl: 'postgresql://cowrie:db-password@db.internal:5432/cowrie',
      cookie: `session=${jwt}`,
      bankCode: '058',
      apiKeyId: 7,
      note: 'operator basic auth failed',
    },
    'key %s and session %s',
    apiKey,
    jwt,
  );
  const text = lines.join('');
  for (const secret of [
    'child-token-value',
    'deep-password',
    'deep-webhook-secret',
    'deep-api-key',
    'b3BzOnBhc3N3b3Jk',
    'S'.repeat(43),
    'jwt-secret-value',
    'e'.repeat(64),
    'termii-key',
    'ops-password-value',
    'sentinel-pw',
    'db-password',
    'c2lnbmF0dXJlLXBhcnQ',
  ]) {
    expect(text).not.toContain(secret);
  }
  const line = JSON.parse(lines[0]!);
  // What is not a secret stays readable: the key's public lookup id, the database host, a bank code.
  expect(line.msg).toBe('key ck_live_0123456789abcdef_[redacted] and session [redacted]');
  expect(line.databaseUrl).toBe('postgresql://cowrie:[redacted]@db.internal:5432/cowrie');
  expect(line.bankCode).toBe('058');
  expect(line.note).toBe('operator basic auth failed');
  expect(line.apiKeyId).toBe(7);
});

test('an error carrying request options (got-style) has its credentials redacted', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ service: 'test', destination });
  const err = Object.assign(new Error('Request failed for https://user:url-password@api.example.com/x'), {
    code: 'ERR_NON_2XX_3XX_RESPONSE',
    options: { headers: { authorization: 'Bearer sk_live_provider_secret' } },
  });
  log.error({ err }, 'provider call failed');
  const text = lines.join('');
  expect(text).not.toContain('sk_live_provider_secret');
  expect(text).not.toContain('url-password');
  expect(JSON.parse(lines[0]!).err.errorCode).toBe('ERR_NON_2XX_3XX_RESPONSE');
});

test('a webhook secret in Standard Webhooks form (whsec_) is redacted by shape in any string', () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ service: 'test', destination });
  const whsec = `whsec_${Buffer.from('0123456789abcdef'.repeat(4), 'utf8').toString('base64')}`;
  log.info({ note: `receiver configured with ${whsec}`, list: [whsec] }, 'secret %s', whsec);
  const line = JSON.parse(lines[0]!);
  expect(lines[0]).not.toContain(whsec.slice('whsec_'.length, 40));
  expect(line.msg).toBe('secret whsec_[redacted]');
  expect(line.note).toBe('receiver configured with whsec_[redacted]');
  expect(line.list).toEqual(['whsec_[redacted]']);
});
