import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_ACTION_NAMES, AUDIT_ACTOR_TYPES, AUDIT_OBJECT_TYPES, ZAuditEventFilters, type AuditEventView } from '@cowrie/accounts';
import { ZTimestamp, named, pageQueryFields, responseOf } from '../../openapi/schemas';

// The audit trail: the requests and answers of its routes.

const ZAuditAction = named(
  'AuditAction',
  z.enum(AUDIT_ACTION_NAMES).meta({
    description: `What was done. ${AUDIT_ACTION_NAMES.map((name) => {
      const action = AUDIT_ACTIONS[name];
      return `\`${name}\`: ${action.summary}${'planned' in action ? ' (planned: recorded once the feature exists)' : ''}.`;
    }).join(' ')}`,
  }),
);

export const ZAuditEvent = named(
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

/** The list's filters (those of the export) with a page. */
export const ZAuditEventsQuery = ZAuditEventFilters.extend({ ...pageQueryFields });
