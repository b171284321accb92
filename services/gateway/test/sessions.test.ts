// Risk: a dashboard session that cannot be ended: a signed-out, disabled or
// deleted user whose token keeps opening the workspace's webhooks until it
// expires. A session is checked against its user in Postgres on every
// request, so it ends at once, on every replica.
import { disableDashboardUser } from '@cowrie/accounts';
import { createUserFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call, startTestGateway } from '../testing';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

async function signedInUser() {
  const { workspace } = await createWorkspaceWithKey(gw.env.db);
  const user = await createUserFor(gw.env.db, workspace.id);
  const signIn = async () => {
    const res = await call(gw.url, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    return res.status === 200 ? (res.body.data.token as string) : res;
  };
  return { user, signIn };
}

const endpoints = (token: string) => call(gw.url, 'GET', '/webhook-endpoints', { token });

test('signing out ends every session of the user at once; signing in again works', async () => {
  const { signIn } = await signedInUser();
  const token = (await signIn()) as string;
  const other = (await signIn()) as string;
  expect((await endpoints(token)).status).toBe(200);
  const out = await call(gw.url, 'POST', '/auth/logout', { token });
  expect(out).toMatchObject({ status: 200, body: { data: { signed_out: true } } });
  for (const ended of [token, other]) {
    const res = await endpoints(ended);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'unauthorized', message: 'This session has ended; sign in again' });
  }
  expect((await endpoints((await signIn()) as string)).status).toBe(200);
});

test('a user disabled by the operator is refused on the next request and cannot sign in', async () => {
  const { user, signIn } = await signedInUser();
  const token = (await signIn()) as string;
  // What `cowrie user disable --id` does (packages/cli/test/accounts-commands.test.ts).
  expect(await disableDashboardUser(gw.env.db, user.id)).toEqual({ id: user.id, disabled: true });
  expect((await endpoints(token)).status).toBe(401);
  const again = await signIn();
  expect(typeof again).not.toBe('string');
  expect(again).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: 'Email or password is incorrect' } } });
});

test('a deleted user is refused on the next request', async () => {
  const { user, signIn } = await signedInUser();
  const token = (await signIn()) as string;
  await gw.env.db.dashboardUser.delete({ where: { id: user.id } });
  expect((await endpoints(token)).status).toBe(401);
});
