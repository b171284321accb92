import { parseAmount } from '@cowrie/core';
import { SANDBOX_COLLECTION_PROVIDER, listInboundPayments, modesHoldingAccount, receiveInboundTransfer, sandboxInboundTransfer } from '@cowrie/deposits';
import { findWallet, renderBalance } from '@cowrie/ledger';
import { positiveIntArg, UsageError, type CliCommand } from '../command';

export const depositCommands: CliCommand[] = [
  {
    name: 'sandbox transfer-in',
    usage: 'cowrie sandbox transfer-in --account-number N --amount A [--currency NGN] [--reference RAIL_REF] [--sender-name NAME]',
    options: ['account-number', 'amount', 'currency', 'reference', 'sender-name'],
    required: ['account-number', 'amount'],
    // The same inbound path a sandbox rail notification takes: matched,
    // credited and evented, or recorded as unmatched (`matched: false` with a
    // reason). It is the sandbox rail's transfer, never another rail's; in
    // production it acts on test accounts only.
    run: async (args, ctx) => {
      const accountNumber = args['account-number']!.trim();
      if (!/^\d{10}$/.test(accountNumber)) throw new UsageError(`--account-number must be 10 digits, got "${accountNumber}"`);
      const amount = parseAmount(args.amount!);
      if (amount.kind === 'invalid') throw new UsageError(`--amount ${amount.reason}`);
      if (!amount.value.greaterThan(0)) throw new UsageError('--amount must be positive');
      const currency = (args.currency ?? 'NGN').trim().toUpperCase();
      if (!/^[A-Z]{3,4}$/.test(currency)) throw new UsageError('--currency must be a currency code');
      if (ctx.config.NODE_ENV === 'production' && (await modesHoldingAccount(ctx.db(), SANDBOX_COLLECTION_PROVIDER, accountNumber)).includes('live')) {
        throw new UsageError(`in production, sandbox transfer-in acts on test accounts only; ${accountNumber} is a live account`);
      }
      const outcome = await receiveInboundTransfer(
        { db: ctx.db(), production: ctx.config.NODE_ENV === 'production' },
        sandboxInboundTransfer({
          accountNumber,
          amount: amount.value,
          currency,
          reference: args.reference?.trim() || undefined,
          senderName: args['sender-name'],
          source: 'cowrie sandbox transfer-in',
        }),
      );
      const wallet = outcome.workspace_id ? await findWallet(ctx.db(), outcome.workspace_id, outcome.currency) : null;
      return { ...outcome, wallet: wallet ? renderBalance(wallet) : null };
    },
  },
  {
    name: 'inbound list',
    usage: 'cowrie inbound list [--status unmatched|credited] [--limit N]',
    options: ['status', 'limit'],
    required: [],
    // What the collection rails reported; `--status unmatched` is the operator's review queue (credited to nobody).
    run: async (args, ctx) => {
      const status = args.status;
      if (status !== undefined && status !== 'unmatched' && status !== 'credited') throw new UsageError('--status must be unmatched or credited');
      const limit = args.limit === undefined ? 50 : Math.min(positiveIntArg(args, 'limit'), 500);
      return { inbound_payments: await listInboundPayments(ctx.db(), { status, limit }) };
    },
  },
];
