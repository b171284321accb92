// Risk: the sandbox drifting from its documented magic accounts
// (docs/design.md), sending a reference twice (which would hide double-send
// bugs in the worker tests), or forgetting what it received when Redis does.
import { randomBytes } from 'node:crypto';
import { Decimal, loadConfig } from '@cowrie/core';
import { countingStatements, type TestEnv } from '@cowrie/testing';
import { createTestEnv } from '@cowrie/ledger/testing';
import {
  RailError,
  RailInputError,
  SANDBOX_BANKS,
  createRails,
  createSandboxRail,
  returnSandboxTransfer,
  sandboxAccountName,
  sandboxTransferCalls,
  sendDueSandboxReversals,
  type PayoutRail,
} from '../src';

let env: TestEnv;
let rail: PayoutRail;
const request = (accountNumber: string, extra: object = {}) => ({
  reference: `snd_${randomBytes(12).toString('hex')}`,
  amount: new Decimal('10'),
  currency: 'NGN',
  accountNumber,
  bankCode: '058',
  accountName: null,
  narration: 'n',
  ...extra,
});

beforeAll(async () => {
  env = await createTestEnv();
  rail = createSandboxRail({ sql: env.sql });
});
afterAll(() => env.cleanup());

test('0000000001: the rail reports a failure', async () => {
  await expect(rail.transfer(request('0000000001'))).resolves.toMatchObject({ status: 'failed', raw: { status: 'failed' } });
});

test('0000000002: the rail throws a 502, says nothing was sent, and keeps nothing', async () => {
  const req = request('0000000002');
  const err = await rail.transfer(req).catch((e) => e);
  expect(err).toBeInstanceOf(RailError);
  expect(err.status).toBe(502);
  expect(err.maybeSent).toBe(false);
  await expect(rail.verifyTransfer(req.reference)).resolves.toBeNull();
});

test('any other 10-digit account succeeds, is idempotent on the reference, and is known to verify', async () => {
  const req = request('0123456789');
  const first = await rail.transfer(req);
  expect(first).toMatchObject({ status: 'completed', providerReference: expect.stringMatching(/^SBX_/), accountName: sandboxAccountName('0123456789') });
  await expect(rail.transfer(req)).resolves.toEqual(first);
  await expect(rail.verifyTransfer(req.reference)).resolves.toEqual(first);
  expect(await sandboxTransferCalls(env.sql, req.reference)).toBe(2);
  // Its bank is Postgres, not a process or Redis: another instance knows the transfer.
  await expect(createSandboxRail({ sql: env.sql }).verifyTransfer(req.reference)).resolves.toEqual(first);
  await expect(rail.transfer(request('12345'))).resolves.toMatchObject({ status: 'failed' });
});

test('transfers sent at once are recorded by one statement; a reference sent twice in that turn is recorded once, counted twice, and answered alike', async () => {
  const requests = Array.from({ length: 5 }, (_, i) => request(`012345678${i}`));
  const counting = countingStatements(env.sql);
  const counted = createSandboxRail({ sql: counting.sql });
  const answers = await Promise.all([...requests, requests[0]!].map((req) => counted.transfer(req)));
  // One statement for the five, and the repeat's own after it.
  expect(counting.counts.get('cowrie-sandbox-transfers')).toBe(2);
  expect(answers.slice(0, 5).map((a) => a.status)).toEqual(Array(5).fill('completed'));
  expect(answers[5]).toEqual(answers[0]);
  expect(await sandboxTransferCalls(env.sql, requests[0]!.reference)).toBe(2);
  expect(await sandboxTransferCalls(env.sql, requests[1]!.reference)).toBe(1);
});

test('returnSandboxTransfer: the bank returns a completed transfer now (verify answers reversed, its notice once), never a failed or unknown one', async () => {
  const req = request('0123456789');
  await rail.transfer(req);
  const notice = await returnSandboxTransfer(env.sql, req.reference);
  expect(notice).toEqual({ reference: req.reference, payload: { event: 'transfer.reversed', data: expect.objectContaining({ status: 'reversed' }) } });
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'reversed' });
  // The due-reversal loop sends its notice once, and a second return changes nothing it has sent.
  const notified: string[] = [];
  await sendDueSandboxReversals(env.sql, async (r) => void notified.push(r.reference), { now: new Date(Date.now() + 1000) });
  expect(notified).toContain(req.reference);
  await expect(returnSandboxTransfer(env.sql, req.reference)).resolves.toMatchObject({ reference: req.reference });
  notified.length = 0;
  await sendDueSandboxReversals(env.sql, async (r) => void notified.push(r.reference), { now: new Date(Date.now() + 1000) });
  expect(notified).not.toContain(req.reference);
  await expect(rail.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'reversed' });

  const failed = request('0000000001');
  await rail.transfer(failed);
  await expect(returnSandboxTransfer(env.sql, failed.reference)).resolves.toBeNull();
  await expect(rail.verifyTransfer(failed.reference)).resolves.toMatchObject({ status: 'failed' });
  await expect(returnSandboxTransfer(env.sql, 'snd_never_sent')).resolves.toBeNull();
});

test('a reversal notice the notification path cannot take is handed again on a later call, and so is every one after it in that batch', async () => {
  const sent = [request('0123456789'), request('0123456789'), request('0123456789')];
  for (const req of sent) {
    await rail.transfer(req);
    await returnSandboxTransfer(env.sql, req.reference);
  }
  const ours = new Set(sent.map((r) => r.reference));
  const due = () => ({ now: new Date(Date.now() + 1000) });
  // The first of ours the path is handed fails (a database error, say): the pass stops there.
  let failedOnce = false;
  const taken: string[] = [];
  await expect(
    sendDueSandboxReversals(
      env.sql,
      async (r) => {
        if (ours.has(r.reference) && !failedOnce) {
          failedOnce = true;
          throw new Error('the notification path is down');
        }
        taken.push(r.reference);
      },
      due(),
    ),
  ).rejects.toThrow('the notification path is down');
  // The next call hands every one of ours not taken yet, each once.
  await sendDueSandboxReversals(env.sql, async (r) => void taken.push(r.reference), due());
  expect(taken.filter((reference) => ours.has(reference)).sort()).toEqual([...ours].sort());
});

test('resolve: a stable name from the number at a listed bank; anything else is refused input', async () => {
  const a = await rail.resolveAccount({ accountNumber: '0123456789', bankCode: '057' });
  expect(a).toEqual({ accountName: sandboxAccountName('0123456789'), accountNumber: '0123456789', bankCode: '057', bankName: 'Zenith Bank' });
  expect((await rail.resolveAccount({ accountNumber: '0123456789', bankCode: '044' })).accountName).toBe(a.accountName);
  await expect(rail.resolveAccount({ accountNumber: '012345678', bankCode: '057' })).rejects.toBeInstanceOf(RailInputError);
  await expect(rail.resolveAccount({ accountNumber: '0123456789', bankCode: 'nope' })).rejects.toBeInstanceOf(RailInputError);
  expect(await rail.listBanks()).toEqual(SANDBOX_BANKS);
});

test('the artificial delay applies after the rail received the transfer, and an abort abandons the wait', async () => {
  const slow = createSandboxRail({ sql: env.sql, delayMs: 5000 });
  const req = request('0123456789');
  const abort = new AbortController();
  const started = Date.now();
  setTimeout(() => abort.abort(new Error('stop')), 100);
  await expect(slow.transfer({ ...req, signal: abort.signal })).rejects.toThrow('stop');
  expect(Date.now() - started).toBeLessThan(2000);
  await expect(slow.verifyTransfer(req.reference)).resolves.toMatchObject({ status: 'completed' });
});

test('rails by currency: live currencies use PAYOUT_RAIL, sandbox currencies the sandbox, coming_soon is 501', () => {
  const rails = createRails(loadConfig({ PAYOUT_RAIL: 'paystack' }), env);
  expect(rails.forCurrency('NGN').id).toBe('paystack');
  expect(rails.forCurrency('eur').id).toBe('sandbox');
  expect(() => rails.forCurrency('USD')).toThrow(expect.objectContaining({ code: 'coming_soon', status: 501 }));
  expect(createRails(loadConfig({}), env).forCurrency('NGN').id).toBe('sandbox');
});
