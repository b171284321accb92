// Risk: the API reference page at /docs, on the dashboard's origin, running
// script the service did not serve (an inline or injected script could read
// an open dashboard tab's session), calling other origins from the reader's
// browser, or framed by another site. Headless Chromium against a gateway.
import type { Browser, Page } from 'playwright-core';
import { startTestGateway } from '@cowrie/gateway/testing';
import { launchChromium, screenshotWindow, watchPageProblems } from './browser';

let gw: Awaited<ReturnType<typeof startTestGateway>>;
let browser: Browser;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  browser = await launchChromium();
  page = await browser.newPage({ baseURL: gw.url });
  page.on('request', (req) => requested.push(req.url()));
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

test('/docs renders the reference from this service alone, under a policy that allows no inline script, no other origin and no framing', async () => {
  const problems = watchPageProblems(page);
  const res = await page.goto('/docs');
  expect(res?.status()).toBe(200);
  const headers = res!.headers();
  const policy = headers['content-security-policy'] ?? '';
  expect(policy).toContain("script-src 'self'");
  expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(policy).toContain("connect-src 'self'");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
  expect(await page.locator('script:not([src])').count()).toBe(0);

  // The reference is rendered: an operation of the document shows.
  await page.getByText('This OpenAPI 3.1 document', { exact: true }).first().waitFor({ timeout: 30_000 });
  await screenshotWindow(page, 'docs-reference');
  const elsewhere = requested.filter((url) => !url.startsWith(gw.url) && !url.startsWith('data:'));
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});
