// Risk: payout approvals that do not hold up in a real browser: an owner who
// cannot set a threshold, a payout above it reported as sent (or sent), the
// requester offered an approval of their own request, a second user's
// approval that skips the step-up or never sends the payout, or an audit page
// that does not show the request, the approval and the payout. Headless
// Chromium against a gateway with its payout worker on a fresh database;
// screenshots go to test-artifacts/dashboard/.
import type { Page } from 'playwright-core';
import { createUserFor } from '@cowrie/testing';
import { call, sessionSignedInAgo, type startTestGateway } from '@cowrie/gateway/testing';
import { newDashboardPage, startBrowserStack } from './browser-stack';
import { expectCount, expectText, screenshotBothWidths, signInThroughForm, watchPageProblems } from './browser';

let stack: Awaited<ReturnType<typeof startBrowserStack>>;
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let page: Page;
const FLOW_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  stack = await startBrowserStack({ workspace: 'Approved Ltd', fundNgn: '5000' });
  ({ gw, page } = stack);
  await signInThroughForm(page, stack.user);
}, 60_000);
afterAll(() => stack?.close());

test(
  'user A sets a threshold and asks for a payout above it; user B signs in, steps up and approves it; the payout completes; the audit page lists it all',
  async () => {
    const workspaceId = (await gw.env.db.dashboardUser.findUniqueOrThrow({ where: { id: stack.user.id } })).workspaceId;
    const admin = await createUserFor(gw.env.db, workspaceId, 'checker@approved.test');
    await gw.env.db.dashboardUser.update({ where: { id: admin.id }, data: { role: 'admin' } });

    // A (an owner) turns approvals on for NGN.
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payout requests' }).waitFor();
    await page.getByText('Off: every payout is sent at once.').waitFor();
    await page.getByRole('button', { name: 'Change thresholds' }).click();
    const thresholds = page.getByRole('form', { name: 'Approval thresholds' });
    await thresholds.getByLabel('Threshold (NGN)').fill('1000');
    await thresholds.getByRole('button', { name: 'Save thresholds' }).click();
    await expectText(page.getByRole('list', { name: 'Thresholds in force' }), 'NGN: payouts above ₦1,000.00 wait for an approval');

    // A sends 2500 NGN: it becomes a request, and the form says so.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Payouts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    const form = page.getByRole('form', { name: 'Send a transfer' });
    await form.getByLabel('Bank').selectOption('058');
    await form.getByLabel('Account number').fill('0123456780');
    await form.getByLabel('Amount (NGN)').fill('2500');
    await form.getByRole('button', { name: 'Check the account' }).click();
    await page.getByRole('region', { name: 'Confirm the payout' }).getByRole('button', { name: 'Confirm and send' }).click();
    const waiting = page.getByRole('status').filter({ hasText: 'Not sent yet' });
    await expectText(waiting, '2500.000000 NGN is above the approval threshold, so this payout waits for another owner or admin to approve it');
    await screenshotBothWidths(page, 'payout-request-made');
    expect(await gw.env.db.ledgerTransaction.count({ where: { workspaceId, type: 'debit' } })).toBe(0);

    // A is not offered the approval of their own request.
    await waiting.getByRole('link', { name: 'See it in Approvals' }).click();
    const pendingA = page.getByRole('table', { name: 'Waiting for approval' }).locator('tbody tr');
    await expectCount(pendingA, 1);
    await expectText(pendingA, 'Yours: another owner or admin approves it');
    expect(await pendingA.getByRole('button', { name: 'Approve and send' }).count()).toBe(0);
    await screenshotBothWidths(page, 'payout-requests-mine');

    // B (an admin) signs in; their sign-in is then older than STEP_UP_SECONDS, so approving asks for the password first.
    const pageB = await newDashboardPage(stack.browser, gw.url);
    const problemsB = watchPageProblems(pageB);
    await signInThroughForm(pageB, admin);
    await pageB.evaluate((t) => (globalThis as any).sessionStorage.setItem('cowrie.dashboard.session', t), await sessionSignedInAgo(gw, admin, 301));
    await pageB.goto('/dashboard/payout-requests');
    const pendingB = pageB.getByRole('table', { name: 'Waiting for approval' }).locator('tbody tr');
    await expectCount(pendingB, 1);
    await expectText(pendingB, stack.user.email);
    await expectText(pendingB, '₦2,500.00');
    await screenshotBothWidths(pageB, 'payout-requests-pending');
    await pendingB.getByRole('button', { name: 'Approve and send' }).click();
    const dialog = pageB.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    await dialog.getByLabel('Password').fill(admin.password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Approved: gone from the waiting list, sent, and completed.
    await pageB.getByText('Nothing waits for an approval.').waitFor();
    const all = pageB.getByRole('table', { name: 'All payout requests' }).locator('tbody tr');
    await expectCount(all, 1);
    await expectText(all, 'approved');
    await expectText(all, `by ${admin.email}`);
    await expectText(all, ': completed');
    await screenshotBothWidths(pageB, 'payout-requests-approved');
    const payouts = await gw.env.db.ledgerTransaction.findMany({ where: { workspaceId, type: 'debit' } });
    expect(payouts.map((p) => [p.status, p.amount.toString()])).toEqual([['completed', '2500']]);
    const token = (await page.evaluate(() => (globalThis as any).sessionStorage.getItem('cowrie.dashboard.session') as string))!;
    const balances = (await call(gw.url, 'GET', '/balances', { token })).body.data as Array<{ currency: string; available: string }>;
    expect(balances.find((b) => b.currency === 'NGN')!.available).toBe(
      (5000 - 2500 - Number(payouts[0]!.fees)).toFixed(6), // the schedule's fee, if any, is held and paid with it
    );
    expect(problemsB).toEqual([]);
    await pageB.context().close();

    // A's audit page: the threshold, the request, the approval by B and the payout.
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
    const rows = page.getByRole('table', { name: 'Audit trail' }).locator('tbody tr');
    await expectText(rows.filter({ hasText: 'workspace.settings_changed' }), stack.user.email);
    await expectText(rows.filter({ hasText: 'payout_request.created' }), stack.user.email);
    await expectText(rows.filter({ hasText: 'payout_request.approved' }), admin.email);
    await expectText(rows.filter({ hasText: 'payout.sent' }), admin.email);
    await expectText(rows.filter({ hasText: 'payout.sent' }), payouts[0]!.reference);
    await page.getByLabel('Action').selectOption('payout_request.approved');
    await expectCount(rows, 1);
    await expectText(rows, `requested_by: ${stack.user.email}`);
    await page.getByLabel('Action').selectOption('');
    await expectCount(rows.filter({ hasText: /payout_request\.|payout\.sent|workspace\.settings_changed/ }), 4);
    await screenshotBothWidths(page, 'audit-approvals');
    expect(stack.problems).toEqual([]);
  },
  FLOW_TIMEOUT_MS,
);
