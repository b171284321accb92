import { withRailErrors } from '@cowrie/core';
import type { OpenedAccount } from '@cowrie/collection-rails';
import type { Prisma } from '@cowrie/db';

/**
 * Runs a rail call that opens an account and turns its failure into the
 * API's answer (docs/reference/errors.md): a rail that fails while opening is 503 provider_error
 * (the client retries shortly); an input the rail cannot take is the client's 400.
 */
export function callRail<T>(fn: () => Promise<T>): Promise<T> {
  return withRailErrors(fn, { kind: 'unavailable', message: 'The collection rail could not open the account; try again shortly' });
}

/** The columns a collection or reserved account keeps of the account its rail opened. */
export function openedAccountColumns(opened: OpenedAccount) {
  return {
    providerAccountReference: opened.providerAccountReference,
    accountNumber: opened.accountNumber,
    accountName: opened.accountName,
    bankName: opened.bankName,
    bankCode: opened.bankCode,
    metadata: { rail: opened.raw } as Prisma.InputJsonValue,
  };
}
