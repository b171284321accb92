import { auditEventsCsv, listAuditEvents } from '@cowrie/accounts';
import type { GatewayDeps } from '../../deps';
import type { HandlersOf } from '../../http/route-registry';
import { sendCsv, sendPage, sessionOf } from '../../http/respond';
import type { auditDashboardSpecs } from './specs';

/** One handler per audit trail route (auditDashboardSpecs): the business's rows, a page or a CSV file. */
export function createAuditDashboardHandlers(deps: GatewayDeps): HandlersOf<typeof auditDashboardSpecs> {
  return {
    async listAuditEvents({ query }, req, res) {
      sendPage(req, res, await listAuditEvents(deps.db, { workspaceId: sessionOf(req).businessId, ...query }));
    },

    async exportAuditEvents({ query }, req, res) {
      await sendCsv(req, res, 'audit-events', auditEventsCsv(deps.db, { workspaceId: sessionOf(req).businessId, ...query }));
    },
  };
}
