// Risk: the sign-in as a lever: one address guessing passwords across many
// emails, a burst of sign-ins taking every thread and hundreds of MiB for
// scrypt, and passwords kept under weaker hashes than today's.
import { randomBytes, scryptSync } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { PASSWORD_HASH_CONCURRENCY, hashPassword, passwordHashesInFlight } from '@cowrie/accounts';
import { createUserFor, createWorkspaceWithKey, freePort, spawnServiceProcess, waitFor } from '@cowrie/testing';
import { call, startTestGateway } from './start-test-gateway';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gw = await startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '6' });
});
afterAll(() => gw.close());

const login = (email: string, password: string) => call(gw.url, 'POST', '/auth/login', { body: { email, password } });

async function user() {
  const { workspace } = await createWorkspaceWithKey(gw.env.db);
  return createUserFor(gw.env.db, workspace.id);
}

test("a password kept under older scrypt parameters is rehashed at its next sign-in, to OWASP's minimum (N=2^17, r=8, p=1)", async () => {
  const u = await user();
  const salt = randomBytes(16);
  const old = [
    'scrypt',
    32768,
    8,
    1,
    salt.toString('base64'),
    scryptSync(u.password, salt, 32, { N: 32768, r: 8, p: 1, maxmem: 128 * 32768 * 8 * 2 }).toString('base64'),
  ].join('$');
  await gw.env.db.dashboardUser.update({ where: { id: u.id }, data: { passwordHash: old } });
  expect((await login(u.email, u.password)).status).toBe(200);
  const stored = (await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: u.id } })).passwordHash;
  expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
  expect((await login(u.email, u.password)).status).toBe(200);
});

test('password hashing runs at most PASSWORD_HASH_CONCURRENCY at a time (two, one on a two-core machine), and the process stays responsive meanwhile', async () => {
  const u = await user();
  let most = 0;
  let slowestHealth = 0;
  let done = false;
  const watch = (async () => {
    while (!done) {
      most = Math.max(most, passwordHashesInFlight().running);
      const started = Date.now();
      expect((await call(gw.url, 'GET', '/healthz')).status).toBe(200);
      slowestHealth = Math.max(slowestHealth, Date.now() - started);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  // Right passwords (they count against no limit), so every one of them is hashed.
  const results = await Promise.all(Array.from({ length: 6 }, () => login(u.email, u.password)));
  done = true;
  await watch;
  expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
  expect(PASSWORD_HASH_CONCURRENCY).toBe(Math.max(1, Math.min(2, availableParallelism() - 1)));
  expect(most).toBe(PASSWORD_HASH_CONCURRENCY);
  expect(slowestHealth).toBeLessThan(100);
});

test('200 concurrent wrong passwords: while the admitted guesses are hashed the gateway stays responsive (no event-loop stall, no health probe slower than 100 ms or half of one hash on a busy machine), and the address limit holds exactly', async () => {
  // The gateway as `npm start` runs it, in its own process (the load's sender
  // must not share its event loop), with its own key prefix (this file's other
  // tests spent this address's budget) and an address limit of 20 (each
  // admitted guess is a full scrypt hash: the file stays quick).
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const metricsToken = randomBytes(16).toString('hex');
  const gateway = spawnServiceProcess(gw.env.config, 'gateway', {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    METRICS_TOKEN: metricsToken,
    REDIS_KEY_PREFIX: `${gw.env.config.REDIS_KEY_PREFIX}crowd:`,
    AUTH_LOGIN_IP_FAILURE_LIMIT: '20',
  });
  // The longest the gateway's event loop was held since the last scrape (prom-client's monitorEventLoopDelay histogram, reset per scrape).
  const eventLoopMaxMs = async () => {
    const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    return Number(/^cowrie_nodejs_eventloop_lag_max_seconds(?:{[^}]*})? (\S+)$/m.exec(text)![1]) * 1000;
  };
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, 30_000, 100);
    // A deployed gateway has signed someone in before: its first query and the decoy hash are behind it. This failure is the first of the 20.
    expect((await call(base, 'POST', '/auth/login', { body: { email: 'warm-up@example.com', password: 'wrong password' } })).status).toBe(401);
    let answered = 0;
    const attempts = Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(base, 'POST', '/auth/login', { body: { email: `crowd-${i}@example.com`, password: 'wrong password' } }).finally(() => (answered += 1)),
      ),
    );
    // The refusals come back at once; the admitted guesses then wait their turn to be hashed.
    await waitFor(() => answered >= 181, 30_000, 5);
    await eventLoopMaxMs();
    let slowestProbe = 0;
    let probes = 0;
    let done = false;
    const watch = (async () => {
      while (!done) {
        const started = Date.now();
        expect((await call(base, 'GET', '/healthz')).status).toBe(200);
        slowestProbe = Math.max(slowestProbe, Date.now() - started);
        probes += 1;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const results = await attempts;
    done = true;
    await watch;
    const stall = await eventLoopMaxMs();
    const count = (status: number) => results.filter((r) => r.status === status).length;
    expect([count(401), count(429)]).toEqual([19, 181]);
    expect(probes).toBeGreaterThan(20);
    // A hash run on the event loop would hold it for a whole hash: the bound
    // is 100 ms, or half of one hash where this machine, busy as it is now,
    // takes longer than 200 ms for one.
    const hashStarted = Date.now();
    await hashPassword('one hash, timed');
    const stallBound = Math.max(100, (Date.now() - hashStarted) / 2);
    expect(slowestProbe).toBeLessThan(stallBound);
    expect(stall).toBeLessThan(stallBound);
  } finally {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
}, 120_000);

test('failed sign-ins are limited per client address across emails (AUTH_LOGIN_IP_FAILURE_LIMIT), not only per email', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await login(`nobody-${i}@example.com`, 'wrong password')).status);
  expect(statuses).toEqual([...Array(6).fill(401), 429]);
  const refused = await login('nobody-else@example.com', 'wrong password');
  expect(refused.status).toBe(429);
  expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { retry_after_seconds: expect.any(Number) } });
});

test('past the global failure budget (AUTH_LOGIN_GLOBAL_FAILURE_LIMIT) every attempt is slowed, more with each failure, and the real user still signs in', async () => {
  const slowed = await startTestGateway({ AUTH_LOGIN_GLOBAL_FAILURE_LIMIT: '3', AUTH_LOGIN_IP_FAILURE_LIMIT: '100' });
  try {
    const { workspace } = await createWorkspaceWithKey(slowed.env.db);
    const u = await createUserFor(slowed.env.db, workspace.id);
    const attempt = (email: string, password: string) => call(slowed.url, 'POST', '/auth/login', { body: { email, password } });
    const delays = () =>
      slowed.env.logLines
        .map((line) => JSON.parse(line) as { msg?: string; delayMs?: number })
        .filter((entry) => entry.msg?.startsWith('sign-in slowed'))
        .map((entry) => entry.delayMs);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(`guess-${i}@example.com`, 'wrong password')).status);
    // Never refused: a global budget that refused would lock every real user out.
    expect(statuses).toEqual(Array(6).fill(401));
    expect(delays()).toEqual([100, 200, 300]);
    expect((await attempt(u.email, u.password)).status).toBe(200);
    expect(delays()).toEqual([100, 200, 300, 400]);
    // The right password gave its place back: the next failure is the seventh, not the eighth.
    expect((await attempt('guess-7@example.com', 'wrong password')).status).toBe(401);
    expect(delays()).toEqual([100, 200, 300, 400, 400]);
  } finally {
    await slowed.close();
  }
});
