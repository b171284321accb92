import { recordEvent, type PrismaClient } from '@cowrie/db';
import type { EmittedEvent } from '@cowrie/events';
import type { EndpointDisabledEventData } from './delivery-bookkeeping';
import { endpointWantsEvent } from './events';

/**
 * A sample `data` of webhook_endpoint.disabled, for the webhook trigger test
 * helper: an endpoint (of no row) switched off after ten failed deliveries
 * over five days, its reason worded as the sender words it.
 */
export function sampleEndpointDisabledData(now = new Date()): EndpointDisabledEventData {
  const failingSince = new Date(now.getTime() - 5 * 24 * 3600 * 1000);
  const failures = 10;
  const since = `${failingSince.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    endpoint_id: 0,
    url: 'https://example.com/webhooks/cowrie',
    reason: `Every delivery failed since ${since} (${failures} failures); switched off automatically`,
    failing_since: failingSince.toISOString(),
    failures,
    disabled_at: now.toISOString(),
  };
}

/** What the webhook trigger test helper recorded. */
export interface RecordedSampleEvent {
  event: string;
  /** The sample `data` every delivery of it carries. */
  data: unknown;
  /** The workspace's active endpoints subscribed to it when it was recorded: the relay delivers one copy to each. */
  endpoints: number;
}

/**
 * The webhook trigger test helper: records a sample event in the workspace's
 * outbox, which the relay delivers like any event of that workspace, signed,
 * to its active endpoints subscribed to the event (a test workspace's
 * endpoints are the test side's, so never a live one).
 */
export async function recordSampleEvent(db: PrismaClient, workspaceId: number, sample: EmittedEvent): Promise<RecordedSampleEvent> {
  return db.$transaction(async (tx) => {
    await recordEvent(tx, workspaceId, sample);
    const endpoints = await tx.webhookEndpoint.findMany({ where: { workspaceId, active: true }, select: { events: true } });
    return { event: sample.name, data: sample.payload, endpoints: endpoints.filter((e) => endpointWantsEvent(e.events, sample.name)).length };
  });
}
