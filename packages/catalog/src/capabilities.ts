import type { Channel } from './channels';

export type CapabilityStatus = 'live' | 'coming_soon';

export interface Capability {
  id: string;
  label: string;
  status: CapabilityStatus;
  endpoints: string[];
}

/**
 * The machine-readable capability map. Deposit
 * channel availability follows the channel catalog, so one override changes both;
 * the verification channels are the deployment's (`verificationChannels`).
 */
export function capabilityMap(channels: readonly Channel[], verificationChannels: Record<string, CapabilityStatus> = {}) {
  const channel = (id: string) => channels.find((c) => c.id === id)?.status ?? 'coming_soon';
  const areas: Capability[] = [
    {
      id: 'contact_verification',
      label: 'Contact verification',
      status: 'live',
      endpoints: ['POST /v1/verifications', 'POST /v1/verifications/:reference/check', 'GET /v1/verifications/:reference'],
    },
    { id: 'collections', label: 'Collections', status: 'live', endpoints: ['POST /v1/collections', 'GET /v1/collections/:id'] },
    {
      id: 'reserved_accounts',
      label: 'Reserved accounts',
      status: 'live',
      endpoints: ['POST /v1/reserved-accounts', 'GET /v1/reserved-accounts', 'GET /v1/reserved-accounts/:id'],
    },
    { id: 'deposits', label: 'Deposits', status: 'live', endpoints: ['POST /v1/deposits'] },
    { id: 'payouts', label: 'Payouts', status: 'live', endpoints: ['POST /v1/transfers', 'POST /v1/withdrawals'] },
    { id: 'bank_lookup', label: 'Bank lookup', status: 'live', endpoints: ['GET /v1/banks', 'POST /v1/banks/resolve'] },
    { id: 'beneficiaries', label: 'Beneficiaries', status: 'live', endpoints: ['GET /v1/beneficiaries', 'POST /v1/beneficiaries'] },
    { id: 'balances_and_ledger', label: 'Balances and ledger', status: 'live', endpoints: ['GET /v1/balances', 'GET /v1/transactions', 'GET /v1/recipients'] },
    { id: 'channels_and_capabilities', label: 'Channels and capabilities', status: 'live', endpoints: ['GET /v1/channels', 'GET /v1/capabilities'] },
    { id: 'outbound_webhooks', label: 'Outbound webhooks', status: 'live', endpoints: ['POST /webhook-endpoints', 'GET /webhook-deliveries'] },
    { id: 'api_conventions', label: 'API conventions: envelope, request ids, scoped keys, idempotency, rate limiting', status: 'live', endpoints: [] },
    { id: 'cards', label: 'Cards', status: 'coming_soon', endpoints: ['POST /v1/cards'] },
    { id: 'open_banking', label: 'Open banking', status: channel('open_banking') === 'live' ? 'live' : 'coming_soon', endpoints: ['POST /v1/deposits'] },
  ];
  return {
    api_version: 'v1',
    areas,
    deposit_channels: Object.fromEntries(channels.map((c) => [c.id, c.status])),
    /** The channels a verification code travels on (sms, voice, email, whatsapp) and their availability in live mode. */
    verification_channels: verificationChannels,
  };
}
