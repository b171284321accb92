import { z } from 'zod';
import { Decimal } from './money';
import { isWalletCurrency, WALLET_CURRENCIES } from './wallet-currencies';

const ZAmount = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    const d = new Decimal(String(v));
    if (d.isFinite() && d.gte(0)) return d;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'must be a non-negative amount' });
  return z.NEVER;
});

const ZRoutingRuleFields = z
  .object({
    name: z.string().min(1).max(100).optional(),
    // A currency no wallet holds never meets a payout: the rule would be dead.
    currency: z
      .string()
      .refine(isWalletCurrency, {
        error: (issue) => `${String(issue.input).toUpperCase()} is not in the wallet catalog (${WALLET_CURRENCIES.join(', ')})`,
      })
      .transform((c) => c.toUpperCase())
      .optional(),
    bank_codes: z.array(z.string().min(1).max(20)).min(1).optional(),
    min_amount: ZAmount.optional(),
    max_amount: ZAmount.optional(),
    workspace_id: z.number().int().positive().optional(),
    rails: z.array(z.string().min(1)).min(1),
  })
  .strict();

/** min_amount is inclusive and max_amount exclusive: a band with max_amount at or below min_amount matches no payout. */
function amountBandIssues(rule: { min_amount?: Decimal; max_amount?: Decimal }, ctx: z.RefinementCtx): void {
  if (rule.min_amount && rule.max_amount && rule.max_amount.lte(rule.min_amount))
    ctx.addIssue({
      code: 'custom',
      path: ['max_amount'],
      message: 'must be above min_amount (min_amount is inclusive, max_amount exclusive): the rule would match no payout',
    });
}

/**
 * A payout routing rule as PAYOUT_ROUTING_RULES (JSON) and the operator's
 * table (`cowrie rail rule set`) write it; @cowrie/rails routes by it. Here
 * rather than in @cowrie/rails so that loadConfig refuses a bad
 * PAYOUT_ROUTING_RULES by name, as the services would at start.
 */
export const ZRoutingRule = ZRoutingRuleFields.superRefine(amountBandIssues);
/** A rule of the operator's table: named, as its name is its key. */
export const ZNamedRoutingRule = ZRoutingRuleFields.extend({ name: z.string().min(1).max(100) }).superRefine(amountBandIssues);
export type WrittenRoutingRule = z.output<typeof ZRoutingRuleFields>;

/** PAYOUT_ROUTING_RULES's JSON text: its rules as written, in order, or what is wrong with it (without the variable's name). */
export function parseRoutingRulesJson(json: string): { rules: WrittenRoutingRule[] } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { problem: 'is not valid JSON' };
  }
  const result = z.array(ZRoutingRule).safeParse(parsed);
  if (!result.success) return { problem: result.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')} ` : ''}${i.message}`).join('; ') };
  return { rules: result.data };
}
