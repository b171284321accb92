// Risk: a lost Postgres or Redis connection answered as a 500 (the API keeps
// 500 for bugs: docs/conventions.md), or a real refusal mistaken for an outage.
import { AppError, isDependencyUnavailable } from '../src/errors';

test("lost Postgres and Redis connections are recognised, through causes and Prisma's driver-adapter error", () => {
  const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
  expect(isDependencyUnavailable(terminated)).toBe(true);
  expect(isDependencyUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  const prisma = Object.assign(new Error('Invalid `db.x.findMany()` invocation: Database error. Code: `57P01`'), {
    code: 'P2039',
    meta: { driverAdapterError: { cause: { originalCode: '57P01', code: '57P01', kind: 'postgres' } } },
  });
  expect(isDependencyUnavailable(prisma)).toBe(true);
  expect(isDependencyUnavailable(Object.assign(new Error('cannot reach'), { code: 'P1001' }))).toBe(true);
  expect(isDependencyUnavailable(new Error('Connection is closed.'))).toBe(true);
  // pg, on the next statement of a transaction whose connection was terminated (the soak found it as a 500).
  expect(isDependencyUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  expect(isDependencyUnavailable(new Error('Client was closed and is not queryable'))).toBe(true);
  expect(
    isDependencyUnavailable(
      new Error('failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:6379' }) }),
    ),
  ).toBe(true);
  expect(isDependencyUnavailable(new Error('CLUSTERDOWN The cluster is down'))).toBe(true);
  // A Cluster master restarting: the slot's owner moves or is gone until ioredis gives up.
  expect(isDependencyUnavailable(new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 2853 127.0.0.1:35987'))).toBe(true);
});

test('a database too busy to give a connection in time is recognised (nothing was committed)', () => {
  expect(isDependencyUnavailable(Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }))).toBe(
    true,
  );
  expect(
    isDependencyUnavailable(
      Object.assign(new Error('Transaction API error: Transaction already closed: A commit cannot be executed on an expired transaction.'), { code: 'P2028' }),
    ),
  ).toBe(true);
  expect(isDependencyUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
});

test('a refusal, a bug or an API error is not an outage', () => {
  expect(isDependencyUnavailable(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
  expect(isDependencyUnavailable(Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }))).toBe(false);
  expect(isDependencyUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
  expect(isDependencyUnavailable(new AppError('not_found', 'No such transfer'))).toBe(false);
  expect(isDependencyUnavailable(null)).toBe(false);
});
