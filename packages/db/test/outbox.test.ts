// Risk: recordEvent writes an outbox row under another name or with other
// data than it was given, or accepts an event the catalog of @cowrie/events
// does not hold (the `@ts-expect-error` lines: the typecheck fails if one of
// them compiles).
import { createTestEnv, type TestEnv } from '@cowrie/testing';
import { recordEvent } from '../src';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.cleanup());

/** Emitters the catalog refuses: never called, only compiled. */
export async function refusedEmitters(workspaceId: number) {
  // @ts-expect-error: not an event of the catalog
  await recordEvent(env.db, workspaceId, { name: 'order.paid', payload: { order: 7 } });
  // @ts-expect-error: ping's data is a message and the endpoint tested
  await recordEvent(env.db, workspaceId, { name: 'ping', payload: { message: 'hello' } });
}

test('an event of the catalog is recorded with its name and data, in the transaction that records it', async () => {
  const workspace = await env.db.workspace.create({ data: { name: 'Outbox' } });
  const payload = { message: 'This is a test event from Cowrie.', endpoint_id: 3 };
  const id = await env.db.$transaction((tx) => recordEvent(tx, workspace.id, { name: 'ping', payload }));
  expect(await env.db.outboxEvent.findUniqueOrThrow({ where: { id }, select: { workspaceId: true, event: true, payload: true } })).toEqual({
    workspaceId: workspace.id,
    event: 'ping',
    payload,
  });
  await expect(
    env.db.$transaction(async (tx) => {
      await recordEvent(tx, workspace.id, { name: 'ping', payload });
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  expect(await env.db.outboxEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
});
