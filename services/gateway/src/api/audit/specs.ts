import { z } from 'zod';
import { ZAuditEventFilters } from '@cowrie/accounts';
import type { AnyRouteSpec } from '../../http/route-registry';
import { ZPageMeta } from '../../openapi/schemas';
import { ZAuditEvent, ZAuditEventsQuery } from './schemas';

const auth = { kind: 'session', role: 'team_admin' } as const;
const tag = 'Audit trail (dashboard)';

/**
 * The audit trail of the signed-in business: every action its people and the
 * operator took, both sides (live and test) in one list. Owners and admins
 * only; rows are never changed or removed. Keyed by their operationId, in the
 * order they are mounted.
 */
export const auditDashboardSpecs = {
  listAuditEvents: {
    method: 'get',
    path: '/audit-events',
    operationId: 'listAuditEvents',
    summary: "The workspace's audit trail, newest first",
    description:
      'Owners and admins only. Every row of the business, live and test side alike (each says `livemode`), whatever Cowrie-Mode says. ' +
      'Filter by action, actor and time; cursor paginated: pass `meta.next_cursor` as `cursor` for the next page (null on the last).',
    tag,
    auth,
    request: { query: ZAuditEventsQuery },
    responses: {
      200: { description: 'A page of the trail', data: z.array(ZAuditEvent), meta: ZPageMeta },
      403: { description: 'insufficient_scope: the signed-in user is a member' },
    },
  },
  exportAuditEvents: {
    method: 'get',
    path: '/audit-events/export',
    operationId: 'exportAuditEvents',
    summary: "The workspace's audit trail as CSV",
    description:
      'Owners and admins only. Every row the filters keep (those of GET /audit-events), newest first, as `text/csv` with a header line; `details` is a JSON cell. ' +
      "A text cell that a spreadsheet would run as a formula starts with `'`.",
    tag,
    auth,
    request: { query: ZAuditEventFilters },
    responses: {
      200: { description: 'The CSV file', csv: true },
      403: { description: 'insufficient_scope: the signed-in user is a member' },
    },
  },
} satisfies Record<string, AnyRouteSpec>;
