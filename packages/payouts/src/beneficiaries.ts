import { AppError, decodePageCursor, idsAfter, pageLimit, pageOf, railErrorToAppError } from '@cowrie/core';
import type { DbOrTx, PrismaClient } from '@cowrie/db';
import { RailInputError, type Rails } from '@cowrie/rails';
import { checkPayoutCurrency } from './currency';
import { renderBeneficiary } from './render';

export function findActiveBeneficiary(db: DbOrTx, workspaceId: number, id: number) {
  return db.beneficiary.findFirst({ where: { id, workspaceId, active: true } });
}

export interface CreateBeneficiaryInput {
  workspaceId: number;
  /** Resolved through bank lookup when omitted. */
  name?: string;
  accountNumber: string;
  bankCode: string;
  currency: string;
}

/**
 * POST /v1/beneficiaries (docs/design.md): the bank must be on the currency's
 * rail bank list; the name is resolved through the rail when not given.
 */
export async function createBeneficiary({ db, rails }: { db: PrismaClient; rails: Rails }, input: CreateBeneficiaryInput) {
  const currency = checkPayoutCurrency(input.currency);
  const rail = rails.forCurrency(currency);
  const bank = (await rails.banks(rail)).find((b) => b.bankCode === input.bankCode);
  if (!bank) throw new AppError('invalid_request', `bank_code: unknown bank ${input.bankCode}; see GET /v1/banks`, { details: { field: 'bank_code' } });
  let name = input.name;
  if (!name) {
    try {
      name = (await rail.resolveAccount({ accountNumber: input.accountNumber, bankCode: input.bankCode })).accountName;
    } catch (err) {
      if (err instanceof RailInputError) throw railErrorToAppError(err);
      throw err;
    }
  }
  const row = await db.beneficiary.create({
    data: { workspaceId: input.workspaceId, name, accountNumber: input.accountNumber, bankCode: bank.bankCode, bankName: bank.bankName, currency },
  });
  return renderBeneficiary(row);
}

/**
 * Rows per page of GET /v1/beneficiaries, when `limit` is not given and at
 * most: the list answered its first 500 rows before it paged, and a client
 * that sends no `limit` still gets them.
 */
export const BENEFICIARY_PAGE_SIZES = { default: 500, max: 500 };

export interface ListBeneficiariesInput {
  workspaceId: number;
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

/** GET /v1/beneficiaries: newest first (by id), removed ones included, cursor paginated. */
export async function listBeneficiaries(db: DbOrTx, input: ListBeneficiariesInput) {
  const limit = pageLimit(input.limit, BENEFICIARY_PAGE_SIZES);
  const where = { workspaceId: input.workspaceId, ...(input.cursor ? idsAfter(decodePageCursor(input.cursor)) : {}) };
  const rows = await db.beneficiary.findMany({ where, orderBy: { id: 'desc' }, take: limit + 1 });
  return pageOf(rows, limit, renderBeneficiary);
}

/**
 * Removes a beneficiary of the workspace: it stays on record (the payouts sent
 * to it name it) but is no longer active, so no withdrawal can use it.
 * Another workspace's beneficiary, or one already removed, is not found.
 * Returns the API's answer and the record as it was removed (the audit trail's details).
 */
export async function removeBeneficiary(db: DbOrTx, workspaceId: number, id: number) {
  const [row] = await db.beneficiary.updateManyAndReturn({ where: { id, workspaceId, active: true }, data: { active: false } });
  if (!row) throw new AppError('not_found', 'Beneficiary not found');
  return { answer: { id, deleted: true as const }, removed: renderBeneficiary(row) };
}
