export * from './client';
export type { components, operations, paths } from './generated/openapi';
// The webhook signature verifier, for receivers of Cowrie's events. Imported
// from its module rather than the package index so the SDK does not load the
// database client the rest of @cowrie/webhooks uses.
export {
  verifyWebhookSignature,
  parseWebhookSignatureHeader,
  computeWebhookSignature,
  SIGNATURE_HEADER,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  type VerifyWebhookSignatureOptions,
} from '@cowrie/webhooks/src/signature';
