import { AppError } from '@cowrie/core';
import { isUniqueViolation, type Prisma } from '@cowrie/db';
import type { OpenedAccount } from '@cowrie/collection-rails';
import { newReference } from '@cowrie/ledger';
import { callRail } from './rail-call';
import type { DepositsContext } from './context';

export interface OpenAccountOnceInput<T> {
  workspaceId: number;
  /** What is being opened, unique per workspace: `collection:<reference>`, `reserved:business:<currency>`. */
  scope: string;
  railReferencePrefix: 'col' | 'rsv';
  /** The account once it is recorded (read outside any transaction). */
  find: () => Promise<T | null>;
  /** The rail call, given the reference the rail is to know the account by. */
  open: (railReference: string) => Promise<OpenedAccount>;
  /** Records the opened account (and its event) in one short transaction. */
  record: (tx: Prisma.TransactionClient, opened: OpenedAccount, railReference: string) => Promise<T>;
}

const POLL_MS = 50;

/**
 * Opens an account at the collection rail at most once per (workspace, scope)
 * at a time, without holding a transaction, a row lock or a pooled connection
 * while the rail answers (a slow provider must not starve the gateway's pool).
 *
 * A claim row (AccountOpening) is committed first: its winner calls the rail,
 * then records the account and deletes the claim in one short transaction.
 * Concurrent openers of the same scope find the claim and wait for the
 * account. A claim whose opener died is taken over once stale, with the same
 * rail reference, so the rail sees one request. A rail failure deletes the
 * claim and writes nothing (the caller's 503). The unique indexes of the
 * recorded rows stay the last guard: an account number the rail already gave
 * another account is refused the same way.
 */
export async function openAccountOnce<T>(ctx: DepositsContext, input: OpenAccountOnceInput<T>): Promise<{ value: T; created: boolean }> {
  const railTimeoutMs = ctx.railTimeoutMs ?? 10_000;
  // Two rail calls (customer + account) and a margin: past this, its opener is gone.
  const staleMs = railTimeoutMs * 2 + 5_000;
  const deadline = Date.now() + staleMs + railTimeoutMs * 2;
  const where = { workspaceId_scope: { workspaceId: input.workspaceId, scope: input.scope } };
  for (;;) {
    const existing = await input.find();
    if (existing) return { value: existing, created: false };
    if (Date.now() > deadline) {
      throw new AppError('provider_error', 'The account is still being opened at the collection rail; try again shortly', { status: 503 });
    }
    const mine = newReference(input.railReferencePrefix);
    // The claim's age is judged by the openers' clocks, never the database's (a
    // timestamp without time zone read in another session zone would be off by hours).
    const claimed = await ctx.db.accountOpening.createMany({
      data: [{ workspaceId: input.workspaceId, scope: input.scope, railReference: mine, createdAt: new Date() }],
      skipDuplicates: true,
    });
    let railReference = mine;
    if (claimed.count === 0) {
      const claim = await ctx.db.accountOpening.findUnique({ where });
      if (!claim) continue; // its opener finished or gave up since: look again
      if (Date.now() - claim.createdAt.getTime() < staleMs) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        continue;
      }
      const taken = await ctx.db.accountOpening.updateMany({ where: { id: claim.id, createdAt: claim.createdAt }, data: { createdAt: new Date() } });
      if (taken.count !== 1) continue;
      railReference = claim.railReference;
    }
    // The opener before us records its account and drops its claim in one
    // commit: holding the claim now, look once more before calling the rail.
    const recorded = await input.find();
    if (recorded) {
      await ctx.db.accountOpening.deleteMany({ where: { workspaceId: input.workspaceId, scope: input.scope, railReference } });
      return { value: recorded, created: false };
    }
    let opened: OpenedAccount;
    try {
      opened = await callRail(() => input.open(railReference));
    } catch (err) {
      await ctx.db.accountOpening.deleteMany({ where: { workspaceId: input.workspaceId, scope: input.scope, railReference } }).catch(() => undefined);
      throw err;
    }
    try {
      const value = await ctx.db.$transaction(async (tx) => {
        const recorded = await input.record(tx, opened, railReference);
        await tx.accountOpening.deleteMany({ where: { workspaceId: input.workspaceId, scope: input.scope } });
        return recorded;
      });
      return { value, created: true };
    } catch (err) {
      await ctx.db.accountOpening.deleteMany({ where: { workspaceId: input.workspaceId, scope: input.scope, railReference } }).catch(() => undefined);
      if (!isUniqueViolation(err)) throw err;
      const winner = await input.find();
      if (winner) return { value: winner, created: false };
      // No opener of this scope won: the rail handed out an account number
      // another account already holds (a reserved account's number is unique).
      // Recording it would send that account's money here; nothing is written,
      // and the caller may try again for a fresh number.
      ctx.logger?.error(
        { workspaceId: input.workspaceId, scope: input.scope, railReference, accountNumber: opened.accountNumber, err: { message: (err as Error).message } },
        'the collection rail returned an account number another account holds',
      );
      throw new AppError('provider_error', 'The collection rail returned an account number that is already in use; try again shortly', { status: 503 });
    }
  }
}
