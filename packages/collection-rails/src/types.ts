import type { Decimal } from '@cowrie/core';

/** Who an account is opened for: the business itself (deposits) or one of its customers. */
export interface RailCustomer {
  name: string;
  /** Absent for the business's own accounts; adapters that need one derive it from the reference. */
  email?: string | null;
}

export interface OpenOneOffAccountInput {
  /** Cowrie's unique reference of the collection; adapters send it as their idempotency/reference key. */
  reference: string;
  /** The client's own reference of the collection, for the rail's metadata. */
  merchantReference: string;
  amount: Decimal;
  currency: string;
  expiresAt: Date;
  /** The name the payer should see on the account. */
  accountName: string;
  customer: RailCustomer;
}

export interface OpenReservedAccountInput {
  /** Cowrie's unique reference of the reserved account. */
  reference: string;
  /** The client's own reference of the account, for the rail's metadata. */
  merchantReference: string;
  currency: string;
  accountName: string;
  customer: RailCustomer;
}

/** An account the rail opened. */
export interface OpenedAccount {
  accountNumber: string;
  accountName: string;
  bankName: string;
  bankCode: string;
  /** The rail's own id or reference of the account (or charge), used to match its notifications. */
  providerAccountReference: string | null;
  /** When the rail closes a one-off account (may differ slightly from the requested time). */
  expiresAt?: Date;
  /** The rail's response, kept for operators; never holds secrets. */
  raw: Record<string, unknown>;
}

/**
 * A collection rail: opens the bank accounts payers transfer into. Every adapter
 * (offline sandbox, Paystack) implements this; the domain never knows which.
 */
export interface CollectionRail {
  /** Provider id recorded on accounts and credits: `sandbox`, `paystack`. */
  readonly name: string;
  openOneOffAccount(input: OpenOneOffAccountInput): Promise<OpenedAccount>;
  openReservedAccount(input: OpenReservedAccountInput): Promise<OpenedAccount>;
}

/**
 * A transfer the rail reports as received into one of our accounts, in the
 * provider-neutral shape the inbound path matches and credits.
 */
export interface InboundTransfer {
  provider: string;
  /** The rail's reference of this payment: the de-duplication key (a notification delivered twice credits once). */
  providerReference: string;
  /** The account the money was sent to. */
  accountNumber: string | null;
  /** The rail's reference of the account or charge it was paid into, when it reports one. */
  providerAccountReference?: string | null;
  amount: Decimal;
  currency: string;
  senderName?: string | null;
  senderAccountNumber?: string | null;
  senderBank?: string | null;
  narration?: string | null;
  /**
   * When the payer paid, as the rail reports it (Paystack's `data.paid_at`).
   * Absent or null: the notification's arrival. A one-off collection is
   * credited when this is before its `expiresAt`, however late the
   * notification arrives (`receiveInboundTransfer`).
   */
  paidAt?: Date | null;
  /**
   * The rail says this is real money: Paystack's `data.domain` is `live`; the
   * sandbox never is. Absent means not known to be real. In production only a
   * live transfer credits a live workspace, and in any environment a live one
   * never credits a test workspace (`receiveInboundTransfer`).
   */
  livemode?: boolean;
  raw: Record<string, unknown>;
}

/** Failures: RailError (the rail failed or could not be reached) and RailInputError (it refused the caller's input), shared by every rail. */
export { RailError, RailInputError } from '@cowrie/core';
