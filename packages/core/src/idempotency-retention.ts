/**
 * How long an `Idempotency-Key` header binds a request: its record is kept
 * 24 hours from the first successful write, and after that the request runs
 * fresh. The gateway's record of the answer and the header key a payout row
 * keeps both end with it.
 */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
