import { UsageError, positiveIntArg, type CliCommand } from '../command';

/** `--bank-codes 058,057` and the like: a comma-separated list, or undefined. */
const listArg = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);

export const railCommands: CliCommand[] = [
  {
    name: 'rail rule list',
    summary: 'the payout routing rules: the table this CLI keeps (tried first), then PAYOUT_ROUTING_RULES',
    options: [],
    run: async (_args, ctx) => {
      const { parseRoutingRules, renderRoutingRule, tableRoutingRules } = await import('../load/rails');
      const table = await tableRoutingRules(await ctx.sql());
      return {
        rails: ctx.config.PAYOUT_RAILS,
        table: table.map((r, i) => renderRoutingRule(r, i + 1)),
        config: parseRoutingRules(ctx.config.PAYOUT_ROUTING_RULES).map((r) => renderRoutingRule(r)),
      };
    },
  },
  {
    name: 'rail rule set',
    summary: 'adds a payout routing rule, or replaces the one with its name (every process routes by it within 10 s)',
    details: [
      'A payout every stated condition matches goes through --rails in that order (only rails PAYOUT_RAILS',
      'names are used); the first rule that matches wins and is recorded on the payout (metadata.rail_route).',
      '--min-amount is inclusive, --max-amount exclusive, both in major units.',
    ].join('\n'),
    options: [
      { name: 'name', value: 'NAME', help: 'the rule (recorded on each payout it routes)', required: true },
      { name: 'rails', value: 'R1,R2', help: 'the rails in order, e.g. flutterwave,paystack', required: true },
      { name: 'currency', value: 'CUR', help: 'only payouts in this currency' },
      { name: 'bank-codes', value: 'C1,C2', help: 'only payouts to these destination banks' },
      { name: 'min-amount', value: 'N', help: 'only payouts of at least this amount' },
      { name: 'max-amount', value: 'N', help: 'only payouts below this amount' },
      { name: 'workspace', value: 'ID', help: "only this workspace's payouts" },
      { name: 'position', value: 'N', help: 'where it is tried (lower first; default last)' },
    ],
    run: async (args, ctx) => {
      const { saveRoutingRule } = await import('../load/rails');
      const db = await ctx.db();
      const rule = {
        name: args.name,
        rails: listArg(args.rails),
        ...(args.currency === undefined ? {} : { currency: args.currency }),
        ...(args['bank-codes'] === undefined ? {} : { bank_codes: listArg(args['bank-codes']) }),
        ...(args['min-amount'] === undefined ? {} : { min_amount: args['min-amount'] }),
        ...(args['max-amount'] === undefined ? {} : { max_amount: args['max-amount'] }),
        ...(args.workspace === undefined ? {} : { workspace_id: positiveIntArg(args, 'workspace') }),
      };
      try {
        return await saveRoutingRule(db, rule, args.position === undefined ? undefined : positiveIntArg(args, 'position'));
      } catch (err) {
        if ((err as { code?: string }).code === 'invalid_request') throw new UsageError((err as Error).message);
        throw err;
      }
    },
  },
  {
    name: 'rail rule remove',
    summary: 'removes a payout routing rule of the table by name',
    options: [{ name: 'name', value: 'NAME', help: 'the rule', required: true }],
    run: async (args, ctx) => {
      const { removeRoutingRule } = await import('../load/rails');
      return removeRoutingRule(await ctx.db(), args.name!);
    },
  },
];
