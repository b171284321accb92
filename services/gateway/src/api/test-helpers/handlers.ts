import { receiveSandboxTransferIn } from '@cowrie/deposits';
import { reverseSandboxPayout } from '@cowrie/payouts';
import { readSandboxCode, sandboxOutbox } from '@cowrie/verification';
import { recordSampleEvent } from '@cowrie/webhooks';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { apiKeyOf, sendData } from '../../http/respond';
import { TRIGGERABLE_EVENTS } from '../../openapi/webhooks';
import type { testHelperApiSpecs } from './specs';

/**
 * One handler per test helper (testHelperApiSpecs). Each calls the path the
 * real thing takes, so its effects (credits, events, webhooks) are the real
 * ones, on the test side; a reversal goes through the gateway's payout rails
 * (deps.payoutRails), as a rail notification does.
 */
export function createTestHelperApiHandlers(deps: GatewayDeps): HandlersOf<typeof testHelperApiSpecs> {
  const outbox = sandboxOutbox(deps.redis, deps.config);
  return {
    async testTransferIn({ body }, req, res) {
      const result = await receiveSandboxTransferIn(
        { db: deps.db, logger: req.log, production: deps.config.NODE_ENV === 'production' },
        { workspaceId: apiKeyOf(req).workspaceId, accountNumber: body.account_number, amount: body.amount },
      );
      deps.metrics.inboundPayments.inc({ provider: 'sandbox', status: result.status, reason: result.reason ?? '' });
      sendData(req, res, 201, result);
    },

    async testVerificationCode({ params }, req, res) {
      sendData(req, res, 200, await readSandboxCode({ db: deps.db, outbox }, { workspaceId: apiKeyOf(req).workspaceId, reference: params.reference }));
    },

    async testReverseTransfer({ params }, req, res) {
      const payout = await reverseSandboxPayout(
        { db: deps.db, sql: deps.sql, rails: deps.payoutRails, log: req.log },
        { workspaceId: apiKeyOf(req).workspaceId, reference: params.reference },
      );
      sendData(req, res, 200, payout);
    },

    async testTriggerWebhook({ body }, req, res) {
      // The registry has asserted the event's scope (triggerScopeOf).
      const spec = TRIGGERABLE_EVENTS.find((e) => e.name === body.event)!;
      const { workspaceId } = apiKeyOf(req);
      sendData(req, res, 201, await recordSampleEvent(deps.db, workspaceId, spec.trigger.event({ workspaceId, now: new Date() })));
    },
  };
}
