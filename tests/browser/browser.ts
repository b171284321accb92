import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { waitFor } from '@cowrie/testing';

/**
 * Debian's chromium package (`apt-get install chromium`; .ci/run installs it),
 * or the browser CHROMIUM_PATH names. playwright-core drives it; it downloads
 * no browser of its own.
 */
function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium at ${candidates.join(' or ')}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** Where the browser tests keep their screenshots (git-ignored): test-artifacts/dashboard/. */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');

/** Elements wider than the viewport that make the whole page scroll sideways (a scrolling table inside its frame is fine). */
function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    if (doc.documentElement.scrollWidth <= width) return [];
    return [...doc.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > width + 1 && !el.closest('.table-wrap'))
      .map((el: any) => `${el.tagName.toLowerCase()}.${el.className} (${Math.round(el.getBoundingClientRect().right)}px > ${width}px)`);
  });
}

/**
 * An accessibility check of the page as it is (axe-core, WCAG 2.1 A and AA
 * rules): a serious or critical violation fails, named with the elements it
 * found. Minor and moderate ones are left to review.
 */
async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (blocking.length > 0) {
    const found = blocking.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    );
    throw new Error(`${name} has accessibility violations:\n${found.join('\n')}`);
  }
}

/**
 * A full-page screenshot of the page at laptop and at phone width (<name>-laptop.png,
 * <name>-phone.png); at either width nothing may push the page wider than the screen.
 * Every page a test takes a picture of is also checked for accessibility (expectAccessible).
 */
export async function screenshotBothWidths(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  mkdirSync(ARTIFACTS, { recursive: true });
  const before = page.viewportSize() ?? VIEWPORTS.laptop;
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const overflowing = await overflowingElements(page);
    if (overflowing.length > 0) throw new Error(`${name} at ${width} width scrolls sideways: ${overflowing.slice(0, 5).join(', ')}`);
  }
  await page.setViewportSize(before);
}

/**
 * Collects what a page did wrong: console errors (a CSP refusal shows there)
 * and uncaught errors. The API's 4xx answers the tests provoke (a wrong
 * password, an ended session) are logged by the browser too, and are not.
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return problems;
}

/** Signs in through the form and waits for Home. */
export async function signInThroughForm(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.goto('/dashboard');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
}

/** Waits until the locator matches `count` elements (a page being replaced shows the previous one's meanwhile). */
export async function expectCount(locator: ReturnType<Page['locator']>, count: number): Promise<void> {
  await waitFor(async () => (await locator.count()) === count, 20_000).catch(async () => {
    throw new Error(`expected ${count} of ${locator}, found ${await locator.count()}`);
  });
}

/** Waits (playwright's own wait) until the locator's text contains `text`. */
export async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor();
}

/** What the window shows at laptop width (not the full page): the README's screenshot is one of these (<name>.png). */
export async function screenshotWindow(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}
