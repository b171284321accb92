// Risk: the dashboard hiding a prefix the fraud guard blocks, or its owner's
// Clear not lifting the block. Headless Chromium against a gateway in block
// mode with a low threshold; screenshots go to test-artifacts/dashboard/.
import type { Browser, Page } from 'playwright-core';
import { createUserFor, createWorkspaceWithKey } from '@cowrie/testing';
import { call } from '@cowrie/gateway/testing';
import { startVerificationGateway } from '../e2e/start-verification-gateway';
import { newDashboardPage } from './browser-stack';
import { expectCount, expectText, launchChromium, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let gw: Awaited<ReturnType<typeof startVerificationGateway>>;
let browser: Browser;
let page: Page;
let pageProblems: string[] = [];

beforeAll(async () => {
  [gw, browser] = await Promise.all([
    startVerificationGateway({ VERIFY_FRAUD_GUARD: 'block', VERIFY_FRAUD_GUARD_MIN_STARTS: '3', VERIFY_RATE_WINDOW_SECONDS: '86400' }),
    launchChromium(),
  ]);
  page = await newDashboardPage(browser, gw.url);
  pageProblems = watchPageProblems(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

test('a pumped prefix shows as blocked with its conversion; the owner clears it and starts to it pass again', async () => {
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: 'Guarded Ltd' });
  await signInThroughForm(page, await createUserFor(gw.env.db, workspace.id));
  const start = (destination: string) => call(gw.url, 'POST', '/v1/verifications', { token: key, body: { channel: 'sms', destination } });
  for (const d of ['+2348051000001', '+2348051000002', '+2348051000003']) expect((await start(d)).status).toBe(201);
  expect((await start('+2348051000004')).body.error.details.reason).toBe('fraud_guard');

  await page.getByRole('link', { name: 'Verifications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Verifications' }).waitFor();
  const blocked = page.getByRole('table', { name: 'Blocked prefixes' }).locator('tbody tr');
  await expectCount(blocked, 1);
  expect((await blocked.first().innerText()).trim().split(/\s+/).slice(0, 5)).toEqual(['+234805', '1', '3', '0', '0%']);
  const sms = page.getByRole('table', { name: 'Conversion by channel' }).locator('tbody tr').first();
  await expectText(sms, '3');
  await screenshotBothWidths(page, 'verifications-guard');

  await blocked.first().getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('button', { name: 'Clear +234805 1' }).click();
  await page.getByText('No prefix is blocked.').waitFor();
  expect((await start('+2348051000004')).status).toBe(201);
  expect(pageProblems).toEqual([]);
});
