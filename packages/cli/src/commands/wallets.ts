import { parseAmount } from '@cowrie/core';
import { currencyStatus } from '@cowrie/catalog';
import { auditLedger, creditWallet, findWallet, renderBalance } from '@cowrie/ledger';
import { CliFinding, positiveIntArg, UsageError, type CliCommand } from '../command';

export const walletCommands: CliCommand[] = [
  {
    name: 'wallet credit',
    usage: 'cowrie wallet credit --workspace ID --currency CUR --amount N',
    options: ['workspace', 'currency', 'amount'],
    required: ['workspace', 'currency', 'amount'],
    // Sandbox funding: a completed ledger credit on channel `adjustment`.
    run: async (args, ctx) => {
      const workspaceId = positiveIntArg(args, 'workspace');
      const currency = args.currency!.trim().toUpperCase();
      if (!currencyStatus(currency)) throw new UsageError(`--currency ${currency} is not in the wallet catalog`);
      const amount = parseAmount(args.amount);
      if (!amount.ok) throw new UsageError(`--amount ${amount.reason}`);
      if (!amount.value.greaterThan(0)) throw new UsageError('--amount must be greater than 0');
      const db = ctx.db();
      if (!(await findWallet(db, workspaceId, currency))) throw new Error(`workspace ${workspaceId} has no ${currency} wallet`);
      const { transaction } = await db.$transaction((tx) =>
        creditWallet(tx, {
          workspaceId,
          currency,
          amount: amount.value,
          category: 'adjustment',
          channel: 'adjustment',
          title: 'Wallet funding',
          description: 'Operator credit (cowrie wallet credit)',
          provider: 'operator',
        }),
      );
      const wallet = (await findWallet(db, workspaceId, currency))!;
      return { ...renderBalance(wallet), workspace_id: workspaceId, transaction_id: transaction.id, reference: transaction.reference };
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
