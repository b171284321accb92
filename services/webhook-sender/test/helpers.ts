import type { TestEnv } from '@cowrie/testing';
import { createAddressPolicy, createWebhookEndpoint } from '@cowrie/webhooks';

/** An endpoint as the dashboard would create it (checked against the env's WEBHOOK_ALLOWED_CIDRS unless `allowedCidrs` is given). */
export async function addEndpoint(env: TestEnv, workspaceId: number, url: string, opts: { events?: string[]; active?: boolean; allowedCidrs?: string[] } = {}) {
  return createWebhookEndpoint(env.db, {
    workspaceId,
    input: { url, events: opts.events, active: opts.active },
    encryptionKey: env.config.ENCRYPTION_KEY,
    maxEndpoints: env.config.WEBHOOK_ENDPOINTS_MAX,
    policy: createAddressPolicy(opts.allowedCidrs ?? env.config.WEBHOOK_ALLOWED_CIDRS),
  });
}

/**
 * What another module does: a state change and its event in one transaction.
 * The outbox row is written as is (recordEvent takes only names and data of the
 * event catalog): the relay and the sender deliver whatever name and data a row holds.
 */
export async function emit(env: TestEnv, workspaceId: number, event: string, payload: Record<string, unknown>) {
  return env.db.$transaction(async (tx) => (await tx.outboxEvent.create({ data: { workspaceId, event, payload: payload as never }, select: { id: true } })).id);
}

/** Finished log rows of an endpoint. */
export const finishedDeliveries = (env: TestEnv, endpointId: number) =>
  env.db.webhookDelivery.findMany({ where: { endpointId, completedAt: { not: null } }, orderBy: { id: 'asc' } });
