import { positiveIntArg, UsageError, type CliCommand } from '../command';

export const depositCommands: CliCommand[] = [
  {
    name: 'sandbox transfer-in',
    summary: 'a sandbox-rail bank transfer into a one-off or reserved account, as a provider notification would bring it',
    // The same inbound path a sandbox rail notification takes: matched,
    // credited and evented, or recorded as unmatched (`matched: false` with a
    // reason). It is the sandbox rail's transfer, never another rail's; in
    // production it acts on test accounts only.
    details: [
      'The same inbound path a sandbox rail notification takes: matched, credited and evented, or',
      'recorded as unmatched (matched: false with a reason). In production, into test accounts only.',
    ].join('\n'),
    options: [
      { name: 'account-number', value: 'N', help: 'the 10-digit account paid into', required: true },
      { name: 'amount', value: 'A', help: 'in major units, greater than 0', required: true },
      { name: 'currency', value: 'CUR', help: 'default NGN' },
      { name: 'reference', value: 'RAIL_REF', help: "the rail's reference (default a new sbx_…); the same one twice is one transfer" },
      { name: 'sender-name', value: 'NAME', help: 'default Sandbox Sender' },
    ],
    run: async (args, ctx) => {
      const accountNumber = args['account-number']!.trim();
      if (!/^\d{10}$/.test(accountNumber)) throw new UsageError(`--account-number must be 10 digits, got "${accountNumber}"`);
      const { findWallet, parseAmount, renderBalance } = await import('../load/ledger');
      const { SANDBOX_COLLECTION_PROVIDER, modesHoldingAccount, receiveInboundTransfer, sandboxInboundTransfer } = await import('../load/deposits');
      const amount = parseAmount(args.amount!);
      if (amount.kind === 'invalid') throw new UsageError(`--amount ${amount.reason}`);
      if (!amount.value.greaterThan(0)) throw new UsageError('--amount must be positive');
      const currency = (args.currency ?? 'NGN').trim().toUpperCase();
      if (!/^[A-Z]{3,4}$/.test(currency)) throw new UsageError('--currency must be a currency code');
      const db = await ctx.db();
      if (ctx.config.NODE_ENV === 'production' && (await modesHoldingAccount(db, SANDBOX_COLLECTION_PROVIDER, accountNumber)).includes('live')) {
        throw new UsageError(`in production, sandbox transfer-in acts on test accounts only; ${accountNumber} is a live account`);
      }
      const outcome = await receiveInboundTransfer(
        { db, production: ctx.config.NODE_ENV === 'production' },
        sandboxInboundTransfer({
          accountNumber,
          amount: amount.value,
          currency,
          reference: args.reference?.trim() || undefined,
          senderName: args['sender-name'],
          source: 'cowrie sandbox transfer-in',
        }),
      );
      const wallet = outcome.workspace_id ? await findWallet(db, outcome.workspace_id, outcome.currency) : null;
      return { ...outcome, wallet: wallet ? renderBalance(wallet) : null };
    },
  },
  {
    name: 'inbound list',
    summary: "transfers the collection rails reported; --status unmatched is the operator's review queue",
    // What the collection rails reported; `--status unmatched` is the operator's review queue (credited to nobody).
    options: [
      { name: 'status', value: 'unmatched|credited', help: 'unmatched: credited to nobody, to review' },
      { name: 'limit', value: 'N', help: 'newest first, default 50, at most 500' },
    ],
    run: async (args, ctx) => {
      const status = args.status;
      if (status !== undefined && status !== 'unmatched' && status !== 'credited') throw new UsageError('--status must be unmatched or credited');
      const limit = args.limit === undefined ? 50 : Math.min(positiveIntArg(args, 'limit'), 500);
      const { listInboundPayments } = await import('../load/deposits');
      return { inbound_payments: await listInboundPayments(await ctx.db(), { status, limit }) };
    },
  },
];
