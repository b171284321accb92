import { recordEvent } from '@cowrie/db';
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

/** What another module does: a state change and its event in one transaction. */
export async function emit(env: TestEnv, workspaceId: number, event: string, payload: Record<string, unknown>) {
  return env.db.$transaction(async (tx) => recordEvent(tx, { workspaceId, event, payload: payload as never }));
}

/** Finished log rows of an endpoint. */
export const finishedDeliveries = (env: TestEnv, endpointId: number) =>
  env.db.webhookDelivery.findMany({ where: { endpointId, completedAt: { not: null } }, orderBy: { id: 'asc' } });
