// Loaded with import() by the rail commands only (see deposits.ts).
export { parseRoutingRules, removeRoutingRule, renderRoutingRule, saveRoutingRule, tableRoutingRules } from '@cowrie/rails';
