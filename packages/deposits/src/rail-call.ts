import { randomBytes } from 'node:crypto';
import { AppError } from '@cowrie/core';
import { RailError, RailInputError, type OpenedAccount } from '@cowrie/collection-rails';
import type { Prisma } from '@cowrie/db';

/** A service-generated reference: `col_` one-off collections, `rsv_` reserved accounts. */
export function newReference(prefix: 'col' | 'rsv'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * Runs a rail call and turns its failure into the interface's answer: a rail
 * that fails while opening an account is 503 provider_error; an input the rail
 * cannot take is the client's 400.
 */
export async function callRail<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RailInputError) {
      throw new AppError('invalid_request', err.message, { details: { field: err.field } });
    }
    if (err instanceof RailError) {
      throw new AppError('provider_error', 'The collection rail could not open the account; try again shortly', {
        status: 503,
        details: { provider: err.details.provider },
        cause: err,
      });
    }
    throw err;
  }
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
