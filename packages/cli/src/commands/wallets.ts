import { parseAmount } from '@cowrie/core';
import { operatorAuditContext, recordAuditEvent, recordOperatorAction, workspaceForMode } from '@cowrie/accounts';
import { currencyStatus } from '@cowrie/catalog';
import { auditLedger, creditWallet, findWallet, renderBalance } from '@cowrie/ledger';
import { CliFinding, modeArg, positiveIntArg, UsageError, type CliCommand } from '../command';

export const walletCommands: CliCommand[] = [
  {
    name: 'wallet credit',
    usage: 'cowrie wallet credit --workspace ID --currency CUR --amount N [--mode live|test] [--live-money]',
    options: ['workspace', 'currency', 'amount', 'mode', 'live-money'],
    flags: ['live-money'],
    required: ['workspace', 'currency', 'amount'],
    // Sandbox funding: a completed ledger credit on channel `adjustment`, on
    // the live wallet (what `key create` keys use by default) or, with
    // --mode test, on the test one. In production a live credit creates real
    // money: it needs --live-money and is kept as an OperatorAction. Every
    // credit is in the audit trail, in the transaction that makes it.
    run: async (args, ctx) => {
      const mode = modeArg(args);
      const liveMoney = ctx.config.NODE_ENV === 'production' && mode === 'live';
      if (liveMoney && args['live-money'] === undefined) {
        throw new UsageError('in production a credit to a live wallet creates real money: pass --live-money to confirm (it is recorded), or --mode test');
      }
      const db = ctx.db();
      const workspaceId = await workspaceForMode(db, positiveIntArg(args, 'workspace'), mode);
      const currency = args.currency!.trim().toUpperCase();
      if (!currencyStatus(currency)) throw new UsageError(`--currency ${currency} is not in the wallet catalog`);
      const amount = parseAmount(args.amount);
      if (amount.kind === 'invalid') throw new UsageError(`--amount ${amount.reason}`);
      if (!amount.value.greaterThan(0)) throw new UsageError('--amount must be greater than 0');
      if (!(await findWallet(db, workspaceId, currency))) throw new Error(`workspace ${workspaceId} has no ${currency} wallet`);
      const { transaction } = await db.$transaction(async (tx) => {
        const credit = await creditWallet(tx, {
          workspaceId,
          currency,
          amount: amount.value,
          category: 'adjustment',
          channel: 'adjustment',
          title: 'Wallet funding',
          description: 'Operator credit (cowrie wallet credit)',
          provider: 'operator',
        });
        await recordAuditEvent(tx, operatorAuditContext(workspaceId), {
          action: 'wallet.credited',
          objectId: credit.transaction.walletId,
          details: { currency, amount: amount.value.toFixed(6), reference: credit.transaction.reference },
        });
        if (liveMoney) {
          await recordOperatorAction(tx, {
            action: 'wallet.credit',
            workspaceId,
            details: { currency, amount: amount.value.toFixed(6), transaction_reference: credit.transaction.reference },
          });
        }
        return credit;
      });
      const wallet = (await findWallet(db, workspaceId, currency))!;
      return { ...renderBalance(wallet), workspace_id: workspaceId, mode, transaction_id: transaction.id, reference: transaction.reference };
    },
  },
  {
    name: 'ledger audit',
    usage: 'cowrie ledger audit [--workspace ID]',
    options: ['workspace'],
    required: [],
    // Every rule the ledger keeps by construction, checked against what is stored; exit 1 on any violation.
    run: async (args, ctx) => {
      const workspaceId = args.workspace === undefined ? undefined : positiveIntArg(args, 'workspace');
      const audit = await auditLedger(ctx.db(), { workspaceId });
      return audit.ok ? audit : new CliFinding(audit, 1);
    },
  },
];
