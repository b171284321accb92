export * from './client';
export * from './errors';
export * from './pagination';
export * from './webhooks';
export type { components, operations, paths } from './generated/openapi';
// The webhook signature format has one implementation: the module the webhook
// sender signs with. The SDK's build (scripts/build.ts) bundles it into dist/,
// so the published package depends on nothing of the server's. Imported from
// its module rather than the package index, which loads the database client.
export {
  verifyWebhookSignature,
  parseWebhookSignatureHeader,
  computeWebhookSignature,
  webhookSignatureHeader,
  SIGNATURE_HEADER,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  standardWebhooksSecret,
  standardWebhooksSignatureHeader,
  STANDARD_WEBHOOKS_HEADERS,
  type VerifyWebhookSignatureOptions,
  type ParsedSignatureHeader,
} from '@cowrie/webhooks/src/signature';
