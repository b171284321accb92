import { z } from 'zod';
import { CHANNEL_IDS } from '@cowrie/catalog';
import { amountField, clientReferenceField, currencyCodeField, emailField, textField } from '@cowrie/core';

/**
 * The request bodies of the deposit routes, built from the shared fields of
 * `@cowrie/core`. The gateway's route registry validates with these very
 * schemas and writes them into the API document. Whether a channel is live
 * and supports the currency is the deployment's catalog's question
 * (requireLiveChannel), asked after these.
 */

/** Largest `expires_in`: a one-off account stays open at most a year. */
export const MAX_EXPIRES_IN_SECONDS = 365 * 24 * 3600;
export const MIN_EXPIRES_IN_SECONDS = 60;
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;

/** `expires_in`: whole seconds, minimum 60, default 3600. */
const expiresInField = z
  .number('must be an integer (seconds)')
  .int('must be an integer (seconds)')
  .min(MIN_EXPIRES_IN_SECONDS, `must be at least ${MIN_EXPIRES_IN_SECONDS}`)
  .max(MAX_EXPIRES_IN_SECONDS, `must be at most ${MAX_EXPIRES_IN_SECONDS}`)
  .nullish()
  .transform((v) => v ?? DEFAULT_EXPIRES_IN_SECONDS)
  .meta({ description: 'Seconds a one-off account stays open', default: DEFAULT_EXPIRES_IN_SECONDS });

/** Currency of a deposit: default NGN; the channel must support it. */
const depositCurrencyField = currencyCodeField
  .nullish()
  .transform((v) => v ?? 'NGN')
  .meta({ description: 'Currency code, uppercased; default NGN; must be supported by the channel' });

/** A client reference; absent (or null) means "generate one". */
const optionalReferenceField = clientReferenceField.nullish().transform((v) => v ?? undefined);

/**
 * POST /v1/deposits, per channel: each
 * channel reads only the fields it uses. A card deposit is refused whatever
 * else the body says, so its branch reads nothing else.
 */
export const ZDepositRequest = z.discriminatedUnion(
  'channel',
  [
    z.object({ channel: z.literal('card') }).loose(),
    z.object({ channel: z.literal('open_banking'), currency: depositCurrencyField }).loose(),
    z.object({ channel: z.literal('reserved_va'), currency: depositCurrencyField }).loose(),
    z
      .object({
        channel: z.literal('collection_va'),
        currency: depositCurrencyField,
        amount: amountField({ missing: 'is required for the collection_va channel' }),
        expires_in: expiresInField,
        reference: optionalReferenceField.meta({
          description:
            'Your reference; a repeat returns the same one-off account while it is pending and not expired, for the same amount and currency (otherwise 400 on reference)',
        }),
      })
      .loose(),
  ],
  {
    error: (issue) => ((issue.input as { channel?: unknown } | undefined)?.channel == null ? 'is required' : `must be one of ${CHANNEL_IDS.join(', ')}`),
  },
);
export type DepositRequest = z.output<typeof ZDepositRequest>;

/** The customer a collection or reserved account is opened for. */
const customerFields = {
  customer_name: textField(200),
  customer_email: emailField,
};

/** POST /v1/collections: a one-off account for a customer. */
export const ZCollectionRequest = z
  .object({
    ...customerFields,
    currency: depositCurrencyField,
    amount: amountField(),
    expires_in: expiresInField,
    reference: optionalReferenceField.meta({ description: 'Your reference; a repeat returns the same collection' }),
  })
  .loose();

/** POST /v1/reserved-accounts: a persistent account for a customer. */
export const ZReservedAccountRequest = z
  .object({
    ...customerFields,
    currency: depositCurrencyField,
    reference: optionalReferenceField.meta({ description: 'Your reference of the account; a repeat returns the same account' }),
  })
  .loose();
