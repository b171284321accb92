import type { Browser, Page } from 'playwright-core';
import { startWebhookWorker } from '@cowrie/webhook-sender';
import { startPayoutWorker } from '@cowrie/payout-worker';
import { createUserFor, createWorkspaceWithKey, startHttpReceiver } from '@cowrie/testing';
import { startTestGateway } from '@cowrie/gateway/testing';
import { fund } from '../e2e/payout-stack';
import { VIEWPORTS, launchChromium, watchPageProblems } from './browser';

/**
 * What a dashboard browser test runs against: a gateway on a fresh database
 * with the webhook and payout workers, a local webhook receiver, a workspace
 * (its API key, a funded NGN wallet, a dashboard user) and one page of
 * headless Chromium at laptop width that may use the clipboard (`env`: the
 * gateway's and workers' configuration beyond the test defaults). `problems`
 * collects what the page did wrong (a CSP refusal shows there).
 */
export async function startBrowserStack(opts: { workspace: string; fundNgn: string; env?: Record<string, string> }) {
  const [gw, browser, receiver] = await Promise.all([startTestGateway({ WEBHOOK_TIMEOUT_MS: '2000', ...opts.env }), launchChromium(), startHttpReceiver()]);
  const worker = await startWebhookWorker(gw.env.config, gw.env.logger);
  const payouts = await startPayoutWorker(gw.env.config, gw.env.logger);
  const { workspace, key } = await createWorkspaceWithKey(gw.env.db, { name: opts.workspace });
  await fund(gw.env.db, workspace.id, 'NGN', opts.fundNgn);
  const user = await createUserFor(gw.env.db, workspace.id);
  const page = await newDashboardPage(browser, gw.url);
  return {
    gw,
    browser,
    receiver,
    apiKey: key,
    user,
    page,
    problems: watchPageProblems(page),
    async close() {
      await browser.close();
      await worker.stop();
      await payouts.stop();
      await receiver.close();
      await gw.close();
    },
  };
}

/** A page of a new browser context at laptop width on the gateway, allowed the clipboard. */
export async function newDashboardPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext({ viewport: VIEWPORTS.laptop, baseURL });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  // Generous for a loaded CI machine; a passing run takes well under a second per step.
  page.setDefaultTimeout(20_000);
  return page;
}
