import { CliFinding, modeArg, positiveIntArg, UsageError, type CliCommand } from '../command';

export const walletCommands: CliCommand[] = [
  {
    name: 'wallet credit',
    summary: 'a ledger credit (sandbox funding), channel adjustment; in production a live credit needs --live-money',
    details: [
      'A completed credit on the live wallet (what key create keys use by default) or, with --mode test,',
      'on the test one. In production a live credit creates real money: it needs --live-money and is',
      'recorded in OperatorAction. Every credit is in the audit trail, in the transaction that makes it.',
    ].join('\n'),
    options: [
      { name: 'workspace', value: 'ID', help: "the workspace's live id", required: true },
      { name: 'currency', value: 'CUR', help: 'a wallet catalog currency (NGN, USD, …)', required: true },
      { name: 'amount', value: 'N', help: 'in major units, greater than 0', required: true },
      { name: 'mode', value: 'live|test', help: 'the wallet credited (default live)' },
      { name: 'live-money', help: 'confirms a live credit in production (recorded)' },
    ],
    run: async (args, ctx) => {
      const mode = modeArg(args);
      const liveMoney = ctx.config.NODE_ENV === 'production' && mode === 'live';
      if (liveMoney && args['live-money'] === undefined) {
        throw new UsageError('in production a credit to a live wallet creates real money: pass --live-money to confirm (it is recorded), or --mode test');
      }
      const { workspaceForMode, recordOperatorAction } = await import('../load/accounts');
      const { operatorAuditContext, recordAuditEvent } = await import('../load/audit');
      const { creditWallet, currencyStatus, findWallet, parseAmount, renderBalance } = await import('../load/ledger');
      const db = await ctx.db();
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
    summary: 'checks the whole ledger in one snapshot, live and test apart; exits 1 on any violation',
    details: [
      'Every rule the ledger keeps by construction, checked against what is stored, in one snapshot;',
      'prints the JSON report and exits 1 on any violation. Both modes unless --mode. --workspace',
      'alone names one workspace row (either side); with --mode it names a business by its live id.',
    ].join('\n'),
    options: [
      { name: 'workspace', value: 'ID', help: 'one workspace (see above)' },
      { name: 'mode', value: 'live|test', help: 'one side only' },
    ],
    run: async (args, ctx) => {
      const mode = args.mode === undefined ? undefined : modeArg(args);
      const { workspaceForMode } = await import('../load/accounts');
      const { auditLedger } = await import('../load/ledger');
      const db = await ctx.db();
      let workspaceId = args.workspace === undefined ? undefined : positiveIntArg(args, 'workspace');
      if (workspaceId !== undefined && mode !== undefined) workspaceId = await workspaceForMode(db, workspaceId, mode);
      // Alone, --workspace names one workspace row: one that does not exist is a mistake (an audit of nothing would pass).
      else if (workspaceId !== undefined && !(await db.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } }))) {
        throw new Error(`workspace ${workspaceId} does not exist`);
      }
      const audit = await auditLedger(db, { workspaceId, mode });
      return audit.ok ? audit : new CliFinding(audit, 1);
    },
  },
];
