import { modelColumns, sqlColumn, type PayoutDispatch } from '@cowrie/db';

/** The `PayoutDispatch` columns the payout statements read (plain pg), typed by the model. */
export const payoutDispatchColumns = modelColumns<PayoutDispatch>()('PayoutDispatch', {
  transactionId: sqlColumn.int,
  attempts: sqlColumn.int,
  outcome: sqlColumn.text.orNull,
  errorStatus: sqlColumn.int.orNull,
  errorMessage: sqlColumn.text.orNull,
  unknownSince: sqlColumn.timestamp.orNull,
  checks: sqlColumn.int,
  reversalChecks: sqlColumn.int,
});
