import type { Decimal } from '@cowrie/core';

/** A bank a rail can pay into. */
export interface Bank {
  bankCode: string;
  bankName: string;
}

/** An account name as the rail resolved it. */
export interface ResolvedAccount {
  accountName: string;
  accountNumber: string;
  bankCode: string;
  bankName: string;
}

export interface TransferRequest {
  /** Cowrie's `snd_` reference: the rail's reference and idempotency key for this payout. */
  reference: string;
  amount: Decimal;
  currency: string;
  accountNumber: string;
  bankCode: string | null;
  /** When null the rail resolves the name itself where it needs one. */
  accountName: string | null;
  narration: string;
  /** Aborted when the worker is shutting down; the call is abandoned, not failed. */
  signal?: AbortSignal;
  /**
   * Called right before the request that moves money leaves: from then on the
   * rail may hold the transfer, whatever happens to this call. Checks the rail
   * makes before it (a name lookup, a recipient) do not call it.
   */
  onSend?: () => void;
}

/**
 * completed: money left; failed: the rail refused it (nothing left); pending:
 * accepted, outcome later; reversed: it had left and the bank returned it
 * (answered by verify, and by a rail's notification).
 */
export type TransferStatus = 'completed' | 'failed' | 'pending' | 'reversed';

export interface TransferResult {
  status: TransferStatus;
  /** The rail's own reference for the transfer, when it returned one. */
  providerReference: string | null;
  /** The account name the rail paid (resolved when the request had none). */
  accountName?: string | null;
  /** Why the rail reported a failure. */
  reason?: string;
  /**
   * Whose failure a `failed` is: `rail` when it is the rail's own (its
   * balance, its configuration), so another rail may pay it; `destination`
   * (or unsaid) when it would fail anywhere (a wrong account). Only a rail's
   * own definite failure moves a payout to the next rail.
   */
  failure?: 'rail' | 'destination';
  /** The rail's response object, kept as the ledger row's `metadata.raw`. */
  raw: Record<string, unknown>;
}

/**
 * One payout rail. `transfer` is idempotent on `reference` at the rail, and
 * `verifyTransfer` answers what the rail knows of a reference (null: it never
 * received it), so an ambiguous failure is settled by asking, not by resending.
 */
export interface PayoutRail {
  /** Recorded as the ledger row's `provider`. */
  readonly id: string;
  listBanks(): Promise<Bank[]>;
  resolveAccount(input: { accountNumber: string; bankCode: string }): Promise<ResolvedAccount>;
  transfer(request: TransferRequest): Promise<TransferResult>;
  verifyTransfer(reference: string, options?: { signal?: AbortSignal }): Promise<TransferResult | null>;
}

/** Failures: RailError (the rail failed or could not be reached) and RailInputError (it refused the caller's input), shared by every rail. */
export { RailError, RailInputError, isRailError } from '@cowrie/core';
