import { paystackCollectionSettings, type Config, type Mode, type PaystackConfig } from '@cowrie/core';
import { createPaystackCollectionRail } from './paystack-collection-rail';
import { createSandboxRail } from './sandbox';
import type { CollectionRail } from './types';

export * from './types';
export * from './signatures';
export * from './sandbox';
export * from './paystack-collection-rail';

/** What the collection rails are built from: COLLECTION_RAIL and the Paystack variables (PAYSTACK_*, shared with the payout rail). */
export type CollectionRailConfig = PaystackConfig & Pick<Config, 'COLLECTION_RAIL' | 'COLLECTION_SANDBOX_FAIL' | 'PAYSTACK_PREFERRED_BANK'>;

/**
 * The collection rail's per-request timeout, as the rail uses it: an opening
 * claim older than two of them belongs to an opener that died.
 */
export const collectionRailTimeoutMs = (config: PaystackConfig): number => paystackCollectionSettings(config).timeoutMs;

/**
 * The collection rail of `mode`: in live mode the one the deployment chose
 * (COLLECTION_RAIL, the offline sandbox unless told otherwise), in test mode
 * always the sandbox.
 */
export function createCollectionRail(config: CollectionRailConfig, mode: Mode = 'live'): CollectionRail {
  if (mode === 'live' && config.COLLECTION_RAIL === 'paystack') {
    const { secretKey, baseUrl, timeoutMs } = paystackCollectionSettings(config);
    if (!secretKey) throw new Error('COLLECTION_RAIL=paystack needs PAYSTACK_SECRET_KEY');
    return createPaystackCollectionRail({ secretKey, baseUrl, timeoutMs, preferredBank: config.PAYSTACK_PREFERRED_BANK });
  }
  return createSandboxRail({ fail: config.COLLECTION_SANDBOX_FAIL });
}
