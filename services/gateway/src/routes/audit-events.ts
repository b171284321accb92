import { z } from 'zod';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTION_NAMES,
  AUDIT_ACTOR_TYPES,
  AUDIT_OBJECT_TYPES,
  ZAuditEventFilters,
  auditEventsCsv,
  listAuditEvents,
  type AuditEventView,
} from '@cowrie/accounts';
import type { GatewayDeps } from '../deps';
import type { RouteMount } from '../http/route-registry';
import { sendCsv, sendPage, sessionOf } from '../http/respond';
import { ZPageMeta, ZTimestamp, named, pageQueryFields, responseOf } from '../openapi/schemas';

const ZAuditAction = named(
  'AuditAction',
  z.enum(AUDIT_ACTION_NAMES).meta({
    description: `What was done. ${AUDIT_ACTION_NAMES.map((name) => {
      const action = AUDIT_ACTIONS[name];
      return `\`${name}\`: ${action.summary}${'planned' in action ? ' (planned: recorded once the feature exists)' : ''}.`;
    }).join(' ')}`,
  }),
);

const ZAuditEvent = named(
  'AuditEvent',
  responseOf<AuditEventView>()(
    z.object({
      id: z.number().int(),
      workspace_id: z.number().int().meta({ description: "The business (its live workspace's id)" }),
      livemode: z.boolean().meta({
        description:
          'false for an action on the test side (a ck_test_ key, a test endpoint or payout); true on the live side and for actions on the whole business (sign-in, the team)',
      }),
      action: ZAuditAction,
      actor: z
        .object({
          type: z.enum(AUDIT_ACTOR_TYPES).meta({ description: 'user (a dashboard session), api_key, operator (the CLI) or anonymous (a failed sign-in)' }),
          user_id: z.number().int().nullable(),
          email: z.string().nullable(),
          api_key_prefix: z.string().nullable().meta({ description: '`ck_<mode>_<lookup id>`, never the key' }),
          operator: z.string().nullable().meta({ description: 'The OS `user@host` that ran the CLI' }),
        })
        .meta({ description: 'Who acted' }),
      object: z.object({ type: z.enum(AUDIT_OBJECT_TYPES), id: z.string().nullable() }).meta({ description: 'What the action acted on' }),
      client_address: z.string().nullable().meta({ description: "The client's address (null for the CLI)" }),
      user_agent: z.string().nullable(),
      request_id: z.string().nullable().meta({ description: 'The request that did it (X-Request-Id); null for the CLI' }),
      details: z
        .record(z.string(), z.unknown())
        .meta({ description: "A few facts of the action, by action (never a secret: the email tried, a key's prefix, an amount)" }),
      created_at: ZTimestamp,
    }),
  ),
);

const ZAuditEventsQuery = ZAuditEventFilters.extend({ ...pageQueryFields });

/**
 * The audit trail of the signed-in business: every action its people and the
 * operator took, both sides (live and test) in one list. Owners and admins
 * only; rows are never changed or removed.
 */
export function registerAuditEventRoutes(app: RouteMount, deps: GatewayDeps) {
  const auth = { kind: 'session', role: 'team_admin' } as const;
  const tag = 'Audit trail (dashboard)';

  app.route(
    {
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
    async ({ query }, req, res) => {
      sendPage(req, res, await listAuditEvents(deps.db, { workspaceId: sessionOf(req).businessId, ...query }));
    },
  );

  app.route(
    {
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
    async ({ query }, req, res) => {
      await sendCsv(req, res, 'audit-events', auditEventsCsv(deps.db, { workspaceId: sessionOf(req).businessId, ...query }));
    },
  );
}
