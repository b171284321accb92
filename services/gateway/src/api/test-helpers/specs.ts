import type { Scope } from '@cowrie/accounts';
import type { AnyRouteSpec } from '../../http/route-registry';
import { TRIGGERABLE_EVENTS } from '../../openapi/webhooks';
import { ZTransaction } from '../payouts/schemas';
import { ZCodeParams, ZPayoutParams, ZSandboxCode, ZTransferIn, ZTransferInRequest, ZTriggerRequest, ZTriggered } from './schemas';

const TAG = 'Test helpers';
const NOT_FOR_LIVE_KEYS = 'A live key gets this 404 on every test helper, as if the route did not exist.';

/** The scope of the action that makes the event a trigger body names; undefined for a body naming no event it sends. */
function triggerScopeOf(body: unknown): Scope | undefined {
  const name = typeof body === 'object' && body !== null ? (body as { event?: unknown }).event : undefined;
  return TRIGGERABLE_EVENTS.find((e) => e.name === name)?.trigger.scope;
}

const scopesOfEvents = TRIGGERABLE_EVENTS.map((e) => `${e.name}: \`${e.trigger.scope}\``).join('; ');

/**
 * The test helpers under /v1/test_helpers (Stripe's convention), for test
 * keys only (`testModeOnly`: a live key gets 404 as for an unknown route):
 * what would otherwise need a payer, a phone, a bank or an event to happen.
 * Keyed by their operationId, in the order they are mounted.
 */
export const testHelperApiSpecs = {
  testTransferIn: {
    method: 'post',
    path: '/test_helpers/deposits/transfer_in',
    operationId: 'testTransferIn',
    summary: "Pay into one of the workspace's test accounts",
    description:
      "A sandbox bank transfer of `amount`, in the account's currency, into one of this workspace's reserved accounts or one-off collections, through the path a provider's notification takes: credited to the wallet with a collection.successful event (a one-off collection must be pending and paid its exact amount), or recorded unmatched with its reason, as a real transfer would be.",
    tag: TAG,
    auth: { kind: 'api_key', scope: 'collections:write', testModeOnly: true },
    request: { body: ZTransferInRequest },
    responses: {
      201: { description: 'What the inbound path made of the transfer', data: ZTransferIn },
      404: { description: `not_found: no reserved account or collection of this workspace has the number. ${NOT_FOR_LIVE_KEYS}` },
    },
  },
  testVerificationCode: {
    method: 'get',
    path: '/test_helpers/verifications/:reference/code',
    operationId: 'testVerificationCode',
    summary: 'The code the sandbox sent for a verification',
    description:
      "Read from the sandbox provider's outbox (its last message for this reference), as `cowrie sandbox messages` reads it: the code a person would have received. The verification's row holds only a hash.",
    tag: TAG,
    auth: { kind: 'api_key', scope: 'verification:write', testModeOnly: true },
    request: { params: ZCodeParams },
    responseHoldsSecret: true,
    responses: {
      200: { description: 'The code', data: ZSandboxCode },
      404: {
        description: `not_found: no verification of this workspace has the reference, or the sandbox sent it no code (delivery failed or not yet made, or past VERIFY_SANDBOX_RETENTION_SECONDS). ${NOT_FOR_LIVE_KEYS}`,
      },
    },
  },
  testReverseTransfer: {
    method: 'post',
    path: '/test_helpers/transfers/:reference/reverse',
    operationId: 'testReverseTransfer',
    summary: 'The sandbox bank returns a completed payout',
    description:
      'The bank returns the transfer now, and its notification is applied at once through the path every rail notification takes: the payout becomes `reversed`, its amount and fees are credited back once (a `reversal` credit) and transfer.reversed is sent, as for a transfer to 0000000003. A payout already reversed is answered as it is.',
    tag: TAG,
    auth: { kind: 'api_key', scope: 'payouts:write', testModeOnly: true },
    request: { params: ZPayoutParams },
    responses: {
      200: { description: 'The payout, reversed', data: ZTransaction },
      400: { description: 'invalid_request: the payout is not completed (details.status: processing or failed)' },
      404: { description: `not_found: no payout of this workspace has the reference. ${NOT_FOR_LIVE_KEYS}` },
    },
  },
  testTriggerWebhook: {
    method: 'post',
    path: '/test_helpers/webhooks/trigger',
    operationId: 'testTriggerWebhook',
    summary: 'Send a sample event to the test endpoints',
    description: `A sample of the event, with a body that validates against its schema (document \`webhooks\`) and references that name no record, is recorded like a real event: the relay delivers it, signed, to this workspace's active test endpoints subscribed to it (\`livemode\` false). \`ping\` is not sent here: a ping goes to one endpoint, whatever it subscribes to, and its data names that endpoint, so it is POST /webhook-endpoints/{id}/test (the dashboard's test action) that sends one; naming it here is 400.`,
    tag: TAG,
    auth: {
      kind: 'api_key',
      scope: null,
      scopeByInput: { description: `the one of the action that makes the event (${scopesOfEvents})`, scopeOf: triggerScopeOf },
      testModeOnly: true,
    },
    request: { body: ZTriggerRequest },
    responses: {
      201: { description: 'The sample recorded, and how many endpoints it goes to', data: ZTriggered },
      400: {
        description:
          'invalid_request: `event` is not one of the events this helper sends (the message lists them; for `ping`, it names POST /webhook-endpoints/{id}/test, which sends it)',
      },
      403: { description: 'insufficient_scope: the key lacks the scope of the action that makes the event (details.required_scope)' },
      404: { description: `not_found: ${NOT_FOR_LIVE_KEYS}` },
    },
  },
} satisfies Record<string, AnyRouteSpec>;
