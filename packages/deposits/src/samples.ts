import { randomBytes } from 'node:crypto';
import { Decimal } from '@cowrie/core';
import { SANDBOX_BANK, sandboxAccountNumber } from '@cowrie/collection-rails';
import { newReference } from '@cowrie/ledger';
import { collectionExpiredPayload } from './collections';
import { collectionSuccessfulPayload } from './render';
import { reservedAccountCreatedPayload } from './reserved-accounts';

// The sample events of the webhook trigger test helper: each built by the
// function that builds the real event's data, from a sandbox account with a
// fresh reference that names no row.

/** A sample `data` of collection.successful: 2,500 NGN paid into a one-off sandbox account. */
export function sampleCollectionSuccessfulData(now = new Date()): ReturnType<typeof collectionSuccessfulPayload> {
  const reference = newReference('col');
  return collectionSuccessfulPayload({
    id: 0,
    reference,
    channel: 'collection_va',
    amount: '2500.000000',
    currency: 'NGN',
    accountNumber: sandboxAccountNumber('one_off', reference),
    providerReference: `sbx_${randomBytes(10).toString('hex')}`,
    paidAt: now,
  });
}

/** A sample `data` of collection.expired: a 2,500 NGN one-off sandbox account that expired unpaid. */
export function sampleCollectionExpiredData(now = new Date()): ReturnType<typeof collectionExpiredPayload> {
  const reference = newReference('col');
  return collectionExpiredPayload({
    id: 0,
    reference,
    amount: new Decimal('2500'),
    currency: 'NGN',
    accountNumber: sandboxAccountNumber('one_off', reference),
    expiresAt: now,
  });
}

/** A sample `data` of reserved_account.created: a customer's reserved sandbox account. */
export function sampleReservedAccountCreatedData(): ReturnType<typeof reservedAccountCreatedPayload> {
  const reference = newReference('rsv');
  return reservedAccountCreatedPayload({
    id: 0,
    reference,
    accountNumber: sandboxAccountNumber('reserved', reference),
    bankName: SANDBOX_BANK.name,
    customerName: 'Ada Obi',
    customerEmail: 'ada@example.com',
    currency: 'NGN',
    holder: 'customer',
  });
}
