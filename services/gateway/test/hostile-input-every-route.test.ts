// Risk: a route (any of the API document's, /v1 and the dashboard's) that
// answers a 5xx to hostile input: path ids that are not ids, bodies of the
// wrong type or shape, injection strings, numbers out of range; or a 400 that
// passes the validator's own wording through instead of "<field> must …".
import { call, signInNewWorkspace, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gw = await startTestGateway({ PUBLIC_API_RATE_LIMIT: '100000', DASHBOARD_RATE_LIMIT: '100000', AUTH_LOGIN_IP_FAILURE_LIMIT: '100000' });
});
afterAll(() => gw.close());

const PARAMS = ['abc', '-1', '0', '99999999999999999999', "1' OR '1'='1", '%00'];
const BODIES: unknown[] = [
  {},
  [],
  'text',
  { amount: -1, currency: 'NGN; DROP TABLE x', id: {}, email: ['a'], code: 123456, role: 'root', since: 'yesterday' },
  { amount: '1e400', limit: 1e308, cursor: '!!!', account_number: "' OR 1=1 --", token: null, password: 'x'.repeat(5000) },
];

test('no route of the API document answers a 5xx to hostile input', async () => {
  const { token, apiKey } = await signInNewWorkspace(gw, 'Hostile');
  const doc = (await call(gw.url, 'GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const failures: string[] = [];
  let sent = 0;
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const method of Object.keys(operations).filter((m) => ['get', 'post', 'put', 'delete'].includes(m))) {
      // Sign-out and removals would end the session the rest of the run uses.
      if (template === '/auth/logout') continue;
      const auth = template.startsWith('/v1/') ? apiKey : token;
      for (const param of PARAMS) {
        const path = template.replace(/\{[^}]+\}/g, encodeURIComponent(param));
        const query = '?limit=abc&cursor=%27%22&status=%3Cscript%3E&from=notadate&to=-5&action=x';
        for (const body of method === 'get' || method === 'delete' ? [undefined] : BODIES) {
          const res = await call(gw.url, method.toUpperCase(), `${path}${method === 'get' ? query : ''}`, {
            token: auth,
            body,
            headers: { 'Idempotency-Key': `hostile-${sent}` },
          });
          sent += 1;
          if (res.status >= 500 && res.status !== 501 && res.status !== 503)
            failures.push(`${method.toUpperCase()} ${path} ${JSON.stringify(body)?.slice(0, 60)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 120)}`);
          // A 400 naming a field says so in the service's words ("<field> must …"), never the validator's.
          const message = res.status === 400 && res.body.error?.details?.field !== undefined ? String(res.body.error.message) : '';
          if (/Invalid|Too (small|big)|expected |must be a [aeiou]/.test(message))
            failures.push(`${method.toUpperCase()} ${path} ${JSON.stringify(body)?.slice(0, 60)} → 400 ${JSON.stringify(message)}`);
        }
        if (!template.includes('{')) break;
      }
    }
  }
  expect(sent).toBeGreaterThan(300);
  expect(failures).toEqual([]);
}, 300_000);
