// Risk: two-step sign-in and step-up in the dashboard that do not hold up in
// a real browser: a QR code fetched from somewhere else (the secret leaving
// the page), recovery codes not shown or shown again, a sign-in that skips the
// code, a guarded change refused with no way to confirm, sent twice after the
// step-up (a second key), or done although the user cancelled; a QR code that
// does not hold the API's otpauth URL; an Audit page that leaves out the second
// factor's enrolment, the sign-in with a code or a recovery code's use. Headless
// Chromium against a gateway on a fresh database; screenshots go to
// test-artifacts/dashboard/.
import type { Browser, Page } from 'playwright-core';
import { generateSync } from 'otplib';
import { create as createQr } from 'qrcode';
import { createUserFor, createWorkspaceWithKey, rememberSecret } from '@cowrie/testing';
import { sessionSignedInAgo, startTestGateway } from '@cowrie/gateway/testing';
import { newDashboardPage } from './browser-stack';
import { expectCount, expectText, launchChromium, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let browser: Browser;
let page: Page;
let problems: string[] = [];
/** Every host the page sent a request to. */
const hosts = new Set<string>();
let owner: { id: number; email: string; password: string };
let workspaceId: number;
let secret: string;
let recoveryCodes: string[] = [];
const FLOW_TIMEOUT_MS = 90_000;

beforeAll(async () => {
  [gw, browser] = await Promise.all([startTestGateway({ AUTH_LOGIN_IP_FAILURE_LIMIT: '1000' }), launchChromium()]);
  const { workspace } = await createWorkspaceWithKey(gw.env.db, { name: 'Two Step Ltd' });
  workspaceId = workspace.id;
  owner = await createUserFor(gw.env.db, workspace.id, 'two.step@example.com');
  page = await newDashboardPage(browser, gw.url);
  problems = watchPageProblems(page);
  page.on('request', (req) => hosts.add(new URL(req.url()).host));
  await signInThroughForm(page, owner);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** The dark modules of the dashboard's QR drawing ("M<x> <y>h1v1h-1z" per module, after the 4-module quiet zone), as "row,col". */
function darkModules(d: string): string[] {
  return [...d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map(([, x, y]) => `${Number(y) - 4},${Number(x) - 4}`).sort();
}

/** The dark modules of `text`'s QR code as the qrcode package makes it (error correction M, what authenticator apps scan). */
function qrModulesOf(text: string): string[] {
  const { size, data } = createQr(text, { errorCorrectionLevel: 'M' }).modules;
  const dark: string[] = [];
  for (let row = 0; row < size; row++) for (let col = 0; col < size; col++) if (data[row * size + col]) dark.push(`${row},${col}`);
  return dark.sort();
}

const totp = (steps = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

/** Replaces this tab's session with one of the same user that signed in `secondsAgo` seconds ago, and reloads. */
async function useSessionSignedInAgo(secondsAgo: number) {
  const token = await sessionSignedInAgo(gw, owner, secondsAgo);
  await page.evaluate((t) => (globalThis as any).sessionStorage.setItem('cowrie.dashboard.session', t), token);
  await page.goto('/dashboard/api-keys');
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
}

async function createKey(name: string) {
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
}

const keysNamed = (name: string) => gw.env.db.apiKey.count({ where: { workspaceId, name } });

test(
  'a stale session creating an API key is asked for the password, then the key is made once; a wrong password is refused; Cancel leaves it undone',
  async () => {
    await useSessionSignedInAgo(301);
    await createKey('Stepped up');
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    await dialog.getByLabel('Password').fill('not my password');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'password: is incorrect' }).waitFor();
    await screenshotBothWidths(page, 'step-up-password');
    await dialog.getByLabel('Password').fill(owner.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    // The refused request went again (the same Idempotency-Key): the key is shown once, and there is one.
    const shown = page.getByRole('region', { name: 'New API key “Stepped up”' });
    await shown.waitFor();
    rememberSecret(await shown.locator('input[data-secret]').inputValue());
    await dialog.waitFor({ state: 'detached' });
    expect(await keysNamed('Stepped up')).toBe(1);
    await shown.getByRole('button', { name: 'I have stored it' }).click();

    await useSessionSignedInAgo(301);
    await createKey('Never made');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('alert').filter({ hasText: 'The key was not created: Not done' }).waitFor();
    expect(await keysNamed('Never made')).toBe(0);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'turning two-step sign-in on: the QR code drawn in the page, the key to type, a first code, then the recovery codes once',
  async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    const [enrolment] = await Promise.all([
      page.waitForResponse((res) => new URL(res.url()).pathname === '/auth/mfa/totp' && res.request().method() === 'POST'),
      page.getByRole('button', { name: 'Set up an authenticator app' }).click(),
    ]);
    const otpauthUrl = ((await enrolment.json()) as { data: { otpauth_url: string } }).data.otpauth_url;
    rememberSecret(otpauthUrl);
    const qr = page.getByRole('img', { name: 'QR code of the two-step sign-in secret for Cowrie' });
    await qr.waitFor();
    secret = (await page.locator('.secret-key').innerText()).replace(/\s+/g, '');
    rememberSecret(secret);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new URL(otpauthUrl).searchParams.get('secret')).toBe(secret);
    // The drawing holds the API's otpauth_url: its dark modules are those of that URL's QR code, module for module.
    expect(darkModules((await qr.locator('path').getAttribute('d'))!)).toEqual(qrModulesOf(otpauthUrl));
    await screenshotBothWidths(page, 'mfa-enrol');
    await page.getByLabel('The 6-digit code the app shows').fill('000000' === totp() ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not turned on: code: is incorrect' }).waitFor();
    await page.getByLabel('The 6-digit code the app shows').fill(totp());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expectCount(codes, 10);
    recoveryCodes = await codes.allInnerTexts();
    recoveryCodes.forEach(rememberSecret);
    await screenshotBothWidths(page, 'mfa-recovery-codes');
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByRole('status').filter({ hasText: 'Two-step sign-in is on. 10 recovery codes left.' }).waitFor();
    await expectCount(page.getByRole('list', { name: 'Recovery codes' }), 0);
    // Nothing of it left the page: every request went to the gateway.
    expect([...hosts]).toEqual([new URL(gw.url).host]);
  },
  FLOW_TIMEOUT_MS,
);

test(
  'sign-in asks for the code after the password; a wrong code is refused, the right one opens Home',
  async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to your dashboard' }).waitFor();
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
    await screenshotBothWidths(page, 'signin-code');
    await page.getByLabel('Code').fill(totp() === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The code is incorrect' }).waitFor();
    await page.getByLabel('Code').fill(totp(1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
  },
  FLOW_TIMEOUT_MS,
);

test(
  'with two-step sign-in on, a stale session steps up with a code (here a recovery code) and the key is made once',
  async () => {
    await useSessionSignedInAgo(301);
    await createKey('After a code');
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.getByLabel('Two-step code').waitFor();
    await screenshotBothWidths(page, 'step-up-code');
    await dialog.getByLabel('Two-step code').fill(recoveryCodes[0]!);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const shown = page.getByRole('region', { name: 'New API key “After a code”' });
    await shown.waitFor();
    rememberSecret(await shown.locator('input[data-secret]').inputValue());
    expect(await keysNamed('After a code')).toBe(1);
    await page.getByRole('link', { name: 'Team' }).click();
    const me = page.getByRole('row').filter({ hasText: owner.email });
    await me.getByRole('cell', { name: 'on' }).waitFor();
  },
  FLOW_TIMEOUT_MS,
);

test(
  'where owners and admins need a second factor, one without it sees only the enrolment screen until it is on',
  async () => {
    const strict = await startTestGateway({ REQUIRE_MFA_FOR_ADMINS: 'true' });
    try {
      const { workspace } = await createWorkspaceWithKey(strict.env.db, { name: 'Strict Ltd' });
      const admin = await createUserFor(strict.env.db, workspace.id, 'strict.owner@example.com');
      const strictPage = await newDashboardPage(browser, strict.url);
      const strictProblems = watchPageProblems(strictPage);
      await strictPage.goto('/dashboard');
      await strictPage.getByLabel('Email').fill(admin.email);
      await strictPage.getByLabel('Password').fill(admin.password);
      await strictPage.getByRole('button', { name: 'Sign in' }).click();
      await strictPage.getByRole('heading', { level: 1, name: 'Two-step sign-in is required' }).waitFor();
      await expectCount(strictPage.getByRole('link', { name: 'Home' }), 0);
      await screenshotBothWidths(strictPage, 'mfa-required');
      await strictPage.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const strictSecret = (await strictPage.locator('.secret-key').innerText()).replace(/\s+/g, '');
      rememberSecret(strictSecret);
      await strictPage.getByLabel('The 6-digit code the app shows').fill(generateSync({ secret: strictSecret }));
      await strictPage.getByRole('button', { name: 'Turn on' }).click();
      const codes = strictPage.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
      await expectCount(codes, 10);
      (await codes.allInnerTexts()).forEach(rememberSecret);
      await strictPage.getByRole('button', { name: 'I have stored them' }).click();
      await strictPage.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
      expect(strictProblems).toEqual([]);
      await strictPage.context().close();
    } finally {
      await strict.close();
    }
  },
  FLOW_TIMEOUT_MS,
);

test(
  "the Audit page shows the second factor turned on, the sign-in with a code after it, and the recovery code's use",
  async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
    const rows = page.getByRole('table', { name: 'Audit trail' }).locator('tbody tr');
    await rows.first().waitFor();
    // Newest first: the recovery code (the step-up), the sign-in with a code (the one after the enrolment), the enrolment, the first sign-in (the password alone).
    const actions = (await rows.locator('td[data-label="Action"]').allInnerTexts()).map((a) => a.trim());
    expect(actions.filter((a) => ['user.recovery_code_used', 'user.signed_in', 'user.mfa_enrolled'].includes(a))).toEqual([
      'user.recovery_code_used',
      'user.signed_in',
      'user.mfa_enrolled',
      'user.signed_in',
    ]);
    await expectText(rows.filter({ hasText: 'user.mfa_enrolled' }), 'method: totp');
    await expectText(rows.filter({ hasText: 'user.recovery_code_used' }), 'remaining: 9');
    for (const action of ['user.recovery_code_used', 'user.mfa_enrolled']) await expectText(rows.filter({ hasText: action }), owner.email);
    await screenshotBothWidths(page, 'audit-second-factor');
  },
  FLOW_TIMEOUT_MS,
);

test(
  'the Security page says two-step sign-in is on as soon as it is turned on: the recovery codes stay until stored, and the page opened again at once says on',
  async () => {
    const other = await createUserFor(gw.env.db, workspaceId, 'two.step.again@example.com');
    const otherPage = await newDashboardPage(browser, gw.url);
    const otherProblems = watchPageProblems(otherPage);
    await signInThroughForm(otherPage, other);
    await otherPage.getByRole('link', { name: 'Security' }).click();
    // The page has read the status (off), which the dashboard keeps for 10 s.
    await otherPage.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const otherSecret = (await otherPage.locator('.secret-key').innerText()).replace(/\s+/g, '');
    rememberSecret(otherSecret);
    await otherPage.getByLabel('The 6-digit code the app shows').fill(generateSync({ secret: otherSecret }));
    const reread = otherPage.waitForResponse((res) => new URL(res.url()).pathname === '/auth/mfa' && res.request().method() === 'GET');
    await otherPage.getByRole('button', { name: 'Turn on' }).click();
    const codes = otherPage.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expectCount(codes, 10);
    (await codes.allInnerTexts()).forEach(rememberSecret);
    // The status is read again once the code is confirmed, and the codes stay on screen after it.
    expect(((await (await reread).json()) as { data: { totp_enabled: boolean } }).data.totp_enabled).toBe(true);
    await expectCount(codes, 10);
    // Within the 10 s, before "I have stored them": Home, then Security again.
    await otherPage.getByRole('link', { name: 'Home' }).click();
    await otherPage.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await otherPage.getByRole('link', { name: 'Security' }).click();
    await otherPage.getByRole('status').filter({ hasText: 'Two-step sign-in is on. 10 recovery codes left.' }).waitFor();
    await expectCount(otherPage.getByRole('button', { name: 'Set up an authenticator app' }), 0);
    await otherPage.getByRole('heading', { name: 'Turn two-step sign-in off' }).waitFor();
    await screenshotBothWidths(otherPage, 'mfa-on-at-once');
    expect(otherProblems).toEqual([]);
    await otherPage.context().close();
  },
  FLOW_TIMEOUT_MS,
);

test('the pages loaded nothing the Content-Security-Policy refused and threw no error', () => {
  expect(problems).toEqual([]);
});
