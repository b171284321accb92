import type { Config, Mode } from '@cowrie/core';
import { createPaystackRail } from './paystack';
import { createSandboxRail } from './sandbox';
import type { CollectionRail } from './types';

export * from './types';
export * from './signatures';
export * from './sandbox';
export * from './paystack';

/**
 * The collection rail of `mode`: in live mode the one the deployment chose
 * (COLLECTION_RAIL, the offline sandbox unless told otherwise), in test mode
 * always the sandbox.
 */
export function createCollectionRail(
  config: Pick<
    Config,
    'COLLECTION_RAIL' | 'COLLECTION_RAIL_TIMEOUT_MS' | 'COLLECTION_SANDBOX_FAIL' | 'PAYSTACK_SECRET_KEY' | 'PAYSTACK_BASE_URL' | 'PAYSTACK_PREFERRED_BANK'
  >,
  mode: Mode = 'live',
): CollectionRail {
  if (mode === 'live' && config.COLLECTION_RAIL === 'paystack') {
    if (!config.PAYSTACK_SECRET_KEY) throw new Error('COLLECTION_RAIL=paystack needs PAYSTACK_SECRET_KEY');
    return createPaystackRail({
      secretKey: config.PAYSTACK_SECRET_KEY,
      baseUrl: config.PAYSTACK_BASE_URL,
      timeoutMs: config.COLLECTION_RAIL_TIMEOUT_MS,
      preferredBank: config.PAYSTACK_PREFERRED_BANK,
    });
  }
  return createSandboxRail({ fail: config.COLLECTION_SANDBOX_FAIL });
}
