import { AppError, Decimal, PAYOUT_RAIL_IDS, parseRoutingRulesJson, ZNamedRoutingRule, type WrittenRoutingRule } from '@cowrie/core';
import { columnList, defineStatement, modelColumns, sqlColumn, type PayoutRoutingRule, type PrismaClient, type SqlQueryable } from '@cowrie/db';

/**
 * One routing rule: which rails, in which order, a payout it matches goes
 * through. Every condition it states must hold (currency, destination bank
 * codes, an amount band with `min_amount` inclusive and `max_amount`
 * exclusive, a workspace); a rule that states none matches every payout.
 */
export interface RoutingRule {
  name: string;
  currency?: string;
  bankCodes?: string[];
  minAmount?: Decimal;
  maxAmount?: Decimal;
  workspaceId?: number;
  rails: string[];
}

/** The rails one payout may go through, in order, and the rule that chose them (null: the configured order). */
export interface PayoutRoute {
  rails: readonly string[];
  rule: string | null;
}

/** PAYOUT_ROUTING_RULES: a JSON array of rules, tried in order (unnamed ones are named by position). loadConfig refuses a broken one by name; this throws on one. */
export function parseRoutingRules(json: string): RoutingRule[] {
  const result = parseRoutingRulesJson(json);
  if ('problem' in result) throw new Error(`PAYOUT_ROUTING_RULES: ${result.problem}`);
  return result.rules.map((r, i) => toRoutingRule(r.name ?? `rule-${i + 1}`, r));
}

/** A rule as written (snake_case, as in PAYOUT_ROUTING_RULES and the CLI) as the router reads it. */
function toRoutingRule(name: string, r: WrittenRoutingRule): RoutingRule {
  return {
    name,
    currency: r.currency,
    bankCodes: r.bank_codes,
    minAmount: r.min_amount,
    maxAmount: r.max_amount,
    workspaceId: r.workspace_id,
    rails: r.rails,
  };
}

/** Whether a payout meets every condition of a rule. */
export function ruleMatches(rule: RoutingRule, payout: { currency: string; bankCode: string | null; amount: Decimal; workspaceId: number }): boolean {
  if (rule.currency && rule.currency !== payout.currency.toUpperCase()) return false;
  if (rule.bankCodes && (!payout.bankCode || !rule.bankCodes.includes(payout.bankCode))) return false;
  if (rule.minAmount && payout.amount.lt(rule.minAmount)) return false;
  if (rule.maxAmount && payout.amount.gte(rule.maxAmount)) return false;
  if (rule.workspaceId !== undefined && rule.workspaceId !== payout.workspaceId) return false;
  return true;
}

/**
 * The rails of a payout: the first rule that matches orders them (only
 * rails this deployment runs are kept; a rule left with none is passed
 * over), else the configured order.
 */
export function routePayout(
  rules: readonly RoutingRule[],
  configured: readonly string[],
  payout: { currency: string; bankCode: string | null; amount: Decimal; workspaceId: number },
): PayoutRoute {
  for (const rule of rules) {
    if (!ruleMatches(rule, payout)) continue;
    const rails = rule.rails.filter((r, i) => configured.includes(r) && rule.rails.indexOf(r) === i);
    if (rails.length) return { rails, rule: rule.name };
  }
  return { rails: configured, rule: null };
}

const routingRuleColumns = modelColumns<PayoutRoutingRule>()('PayoutRoutingRule', {
  name: sqlColumn.text,
  position: sqlColumn.int,
  currency: sqlColumn.text.orNull,
  bankCodes: sqlColumn.textList,
  minAmount: sqlColumn.decimal.orNull,
  maxAmount: sqlColumn.decimal.orNull,
  workspaceId: sqlColumn.int.orNull,
  rails: sqlColumn.textList,
});

/** The operator's routing rules (`cowrie rail rule …`), in the order they are tried. */
const TABLE_RULES = defineStatement({
  name: 'cowrie-payout-routing-rules',
  params: {},
  text: () => `SELECT ${columnList(routingRuleColumns)} FROM "PayoutRoutingRule" ORDER BY "position", "id"`,
  result: routingRuleColumns,
});

/** The operator's table of routing rules, read as rules. */
export async function tableRoutingRules(sql: SqlQueryable): Promise<RoutingRule[]> {
  const { rows } = await TABLE_RULES.run(sql, {});
  return rows.map((r) => ({
    name: r.name,
    currency: r.currency ?? undefined,
    bankCodes: r.bankCodes.length ? r.bankCodes : undefined,
    minAmount: r.minAmount ? new Decimal(r.minAmount.toString()) : undefined,
    maxAmount: r.maxAmount ? new Decimal(r.maxAmount.toString()) : undefined,
    workspaceId: r.workspaceId ?? undefined,
    rails: r.rails,
  }));
}

/** A rule as the CLI shows it (the JSON form PAYOUT_ROUTING_RULES takes, with its position). */
export function renderRoutingRule(rule: RoutingRule, position?: number) {
  return {
    name: rule.name,
    ...(position === undefined ? {} : { position }),
    currency: rule.currency ?? null,
    bank_codes: rule.bankCodes ?? null,
    min_amount: rule.minAmount?.toFixed() ?? null,
    max_amount: rule.maxAmount?.toFixed() ?? null,
    workspace_id: rule.workspaceId ?? null,
    rails: rule.rails,
  };
}

/**
 * Adds (or, with the same name, replaces) one of the operator's routing
 * rules, at `position` (lower first; default after the others). Its rails
 * must be payout rails Cowrie has; whether this deployment runs them is
 * decided per payout (a rule left with none is passed over).
 */
export async function saveRoutingRule(db: PrismaClient, input: unknown, position?: number) {
  const parsed = ZNamedRoutingRule.safeParse(input);
  if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || 'rule'} ${i.message}`).join('; '));
  const r = parsed.data;
  // A currency outside the wallet catalog is refused by the rule's own schema (@cowrie/core), as in PAYOUT_ROUTING_RULES.
  const unknown = r.rails.filter((rail) => !(PAYOUT_RAIL_IDS as readonly string[]).includes(rail));
  if (unknown.length) throw new AppError('invalid_request', `rails names an unknown rail: ${unknown.join(', ')}`);
  const last = await db.payoutRoutingRule.aggregate({ _max: { position: true } });
  const data = {
    position: position ?? (last._max.position ?? 0) + 1,
    currency: r.currency ?? null,
    bankCodes: r.bank_codes ?? [],
    minAmount: r.min_amount?.toFixed() ?? null,
    maxAmount: r.max_amount?.toFixed() ?? null,
    workspaceId: r.workspace_id ?? null,
    rails: r.rails,
  };
  const row = await db.payoutRoutingRule.upsert({ where: { name: r.name }, create: { name: r.name, ...data }, update: data });
  return renderRoutingRule(toRoutingRule(row.name, r), row.position);
}

export async function removeRoutingRule(db: PrismaClient, name: string) {
  const { count } = await db.payoutRoutingRule.deleteMany({ where: { name } });
  if (!count) throw new AppError('not_found', `No routing rule named ${name}`);
  return { name, removed: true };
}
