import { modelColumns, sqlColumn, type OutboxEvent, type WebhookDelivery, type WebhookEndpoint } from '@cowrie/db';

// The columns the webhook statements (plain pg) read, typed by their models.

export const webhookDeliveryColumns = modelColumns<WebhookDelivery>()('WebhookDelivery', {
  id: sqlColumn.bigint,
  deliveryId: sqlColumn.uuid,
  dispatch: sqlColumn.int,
  endpointId: sqlColumn.int,
  outboxEventId: sqlColumn.bigint.orNull,
  event: sqlColumn.text,
  payload: sqlColumn.json,
  completedAt: sqlColumn.timestamp.orNull,
});

export const webhookEndpointColumns = modelColumns<WebhookEndpoint>()('WebhookEndpoint', {
  id: sqlColumn.int,
  workspaceId: sqlColumn.int,
  events: sqlColumn.textList,
});

export const outboxEventColumns = modelColumns<OutboxEvent>()('OutboxEvent', {
  id: sqlColumn.bigint,
  workspaceId: sqlColumn.int,
  event: sqlColumn.text,
  payload: sqlColumn.json,
  createdAt: sqlColumn.timestamp,
});
