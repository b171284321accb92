import { z } from 'zod';
import { SCOPES } from './scopes';
import { USER_ROLES } from './team';

/** What an audited action acts on: its rows' `object.type`. */
export const AUDIT_OBJECT_TYPES = [
  'user',
  'api_key',
  'transaction',
  'payout_request',
  'beneficiary',
  'webhook_endpoint',
  'webhook_delivery',
  'workspace',
  'wallet',
] as const;
export type AuditObjectType = (typeof AUDIT_OBJECT_TYPES)[number];

/**
 * One action of the catalog.
 * - `object`: what it acts on (the row's object type; the caller gives the id).
 * - `scope`: `mode` when it acts on one side of the business (a key, an
 *   endpoint, a payout of the live or the test side: the row's `livemode` is
 *   that side's), `business` when on the whole business (sign-in, the team,
 *   the workspace itself: `livemode` true).
 * - `details`: the only fields its row keeps besides the columns; anything
 *   else a caller passes is dropped, so a secret cannot ride along.
 */
interface AuditActionDefinition {
  object: AuditObjectType;
  scope: 'mode' | 'business';
  summary: string;
  details: z.ZodObject;
}

const none = z.object({});
const email = z.string().max(254);
const role = z.enum(USER_ROLES);
const beneficiaryDetails = z.object({ name: z.string(), account_number: z.string(), bank_code: z.string(), currency: z.string() });
const keyPrefix = z.string().max(40).meta({ description: '`ck_<mode>_<lookup id>`: the public part of the key' });

/**
 * Every action the audit trail records, in one place: its name (the row's
 * `action`, a filter of GET /audit-events), what it acts on, and the fields
 * of its `details`. None of them holds a secret: never a password, a key, a
 * one-time password, a webhook secret or a code, only what tells them apart.
 */
export const AUDIT_ACTIONS = {
  // ─── Signing in and out (the dashboard) ────────────────────────────────────
  'user.signed_in': { object: 'user', scope: 'business', summary: 'A user signed in to the dashboard', details: none },
  'user.sign_in_failed': {
    object: 'user',
    scope: 'business',
    summary:
      'A sign-in was refused (a wrong password or second-factor code, or a removed or unknown user). `email` is the email tried when it is one (never the password); the row belongs to the business of the user with that email, if any',
    details: z.object({ email: email.nullable() }),
  },
  'user.signed_out': { object: 'user', scope: 'business', summary: 'A user signed out (every session of theirs ended)', details: none },
  'user.password_changed': { object: 'user', scope: 'business', summary: 'A user changed their own password (a one-time one included)', details: none },
  'user.password_reset_requested': {
    object: 'user',
    scope: 'business',
    summary: "Someone asked for a password reset link for a user's email, and it was sent (`sent`: whether the email provider took it); the actor is anonymous",
    details: z.object({ sent: z.boolean() }),
  },
  'user.password_reset': {
    object: 'user',
    scope: 'business',
    summary: 'A user chose a new password with an emailed link (`via`: a password reset, or their invitation); every session of theirs ended',
    details: z.object({ via: z.enum(['reset', 'invitation']) }),
  },

  // ─── The second factor ────────────────────────────────────────────────────────
  'user.mfa_enrolled': {
    object: 'user',
    scope: 'business',
    summary: 'A user turned on a second factor (confirmed its first code)',
    details: z.object({ method: z.string().max(40) }),
  },
  'user.mfa_disabled': {
    object: 'user',
    scope: 'business',
    summary: 'A user turned off their second factor (with a code of it)',
    details: z.object({ method: z.string().max(40) }),
  },
  'user.mfa_reset': {
    object: 'user',
    scope: 'business',
    summary: "An owner reset another user's second factor (`had_second_factor`: whether one was on)",
    details: z.object({ email, had_second_factor: z.boolean() }),
  },
  'user.recovery_code_used': {
    object: 'user',
    scope: 'business',
    summary: 'A user used a recovery code in place of a code of their second factor, to sign in or to step up (`remaining`: the unused ones left)',
    details: z.object({ remaining: z.number().int() }),
  },

  // ─── The team ────────────────────────────────────────────────────────────
  'user.invited': {
    object: 'user',
    scope: 'business',
    summary: 'An owner or admin added a user (`delivery`: a one-time password, or a link by email; absent on rows from before links)',
    details: z.object({ email, role, delivery: z.enum(['one_time_password', 'email']).optional(), email_sent: z.boolean().optional() }),
  },
  'user.removed': {
    object: 'user',
    scope: 'business',
    summary: 'An owner or admin removed a user (and, when asked, revoked the API keys they made)',
    details: z.object({ email, role, revoked_key_count: z.number().int().nonnegative().optional() }),
  },
  'user.role_changed': {
    object: 'user',
    scope: 'business',
    summary: "An owner or admin changed a user's role",
    details: z.object({ email, from: role, to: role }),
  },
  'user.created': { object: 'user', scope: 'business', summary: 'The operator made a user (an owner) with the CLI', details: z.object({ email, role }) },
  'user.disabled': {
    object: 'user',
    scope: 'business',
    summary: 'The operator disabled a user with the CLI: sign-in and every session refused',
    details: z.object({ email }),
  },

  // ─── API keys (the dashboard and the CLI) ────────────────────────────────────
  'api_key.created': {
    object: 'api_key',
    scope: 'mode',
    summary: 'An API key was made',
    details: z.object({ prefix: keyPrefix, name: z.string().max(100).nullable(), scopes: z.array(z.enum(SCOPES)) }),
  },
  'api_key.rolled': {
    object: 'api_key',
    scope: 'mode',
    summary: 'An API key was rolled: a new key (new_key_id) with its scopes, the old one working until old_key_stops_at',
    details: z.object({ prefix: keyPrefix, new_key_id: z.number().int(), new_prefix: keyPrefix, old_key_stops_at: z.string().nullable() }),
  },
  'api_key.revoked': { object: 'api_key', scope: 'mode', summary: 'An API key was revoked', details: z.object({ prefix: keyPrefix }) },

  // ─── Money ─────────────────────────────────────────────────────────────────
  'payout.sent': {
    object: 'transaction',
    scope: 'mode',
    summary: 'A transfer or a withdrawal was sent from the dashboard (the row is the payout as it was created; its outcome is the transaction)',
    details: z.object({
      kind: z.enum(['transfer', 'withdrawal']),
      reference: z.string(),
      currency: z.string(),
      amount: z.string(),
      counterparty_account: z.string().nullable(),
      counterparty_bank: z.string().nullable(),
    }),
  },
  'payout_request.created': {
    object: 'payout_request',
    scope: 'mode',
    summary: "A dashboard payout above its currency's approval threshold became a payout request (nothing sent, nothing held)",
    details: z.object({
      kind: z.enum(['transfer', 'withdrawal']),
      currency: z.string(),
      amount: z.string(),
      threshold: z.string(),
      counterparty_account: z.string(),
      counterparty_bank: z.string().nullable(),
    }),
  },
  'payout_request.approved': {
    object: 'payout_request',
    scope: 'mode',
    summary: "An owner or admin approved a payout request (not their own): its payout was sent (`reference`), under the requester's Idempotency-Key",
    details: z.object({ currency: z.string(), amount: z.string(), requested_by: email, reference: z.string() }),
  },
  'payout_request.rejected': {
    object: 'payout_request',
    scope: 'mode',
    summary:
      'An owner or admin rejected a payout request (its requester included, withdrawing it), or removed its requester from the team or made them a member, which rejects their pending requests (`reason` says so): nothing was sent',
    details: z.object({ currency: z.string(), amount: z.string(), requested_by: email, reason: z.string().nullable() }),
  },
  'beneficiary.created': {
    object: 'beneficiary',
    scope: 'mode',
    summary: 'A beneficiary (where withdrawals send money) was saved from the dashboard',
    details: beneficiaryDetails,
  },
  'beneficiary.removed': {
    object: 'beneficiary',
    scope: 'mode',
    summary: 'A beneficiary was removed from the dashboard: it stays on record, and no withdrawal can use it again',
    details: beneficiaryDetails,
  },
  'wallet.credited': {
    object: 'wallet',
    scope: 'mode',
    summary: 'The operator credited a wallet with the CLI (cowrie wallet credit)',
    details: z.object({ currency: z.string(), amount: z.string(), reference: z.string() }),
  },

  // ─── Webhooks ──────────────────────────────────────────────────────────────
  'webhook_endpoint.created': {
    object: 'webhook_endpoint',
    scope: 'mode',
    summary: 'A webhook endpoint was added',
    details: z.object({ url: z.string(), events: z.array(z.string()) }),
  },
  'webhook_endpoint.updated': {
    object: 'webhook_endpoint',
    scope: 'mode',
    summary: "A webhook endpoint's url, events or active changed (the values it was given)",
    details: z.object({ url: z.string().optional(), events: z.array(z.string()).optional(), active: z.boolean().optional() }),
  },
  'webhook_endpoint.deleted': { object: 'webhook_endpoint', scope: 'mode', summary: 'A webhook endpoint was deleted', details: none },
  'webhook_endpoint.secret_rolled': {
    object: 'webhook_endpoint',
    scope: 'mode',
    summary: "A webhook endpoint's signing secret was rolled",
    details: z.object({ grace_seconds: z.number().int() }),
  },
  'webhook_endpoint.recovered': {
    object: 'webhook_endpoint',
    scope: 'mode',
    summary: "An endpoint's failed deliveries since a time were queued again",
    details: z.object({ since: z.string(), queued: z.number().int(), has_more: z.boolean() }),
  },
  'webhook_delivery.resent': {
    object: 'webhook_delivery',
    scope: 'mode',
    summary: 'A delivery was sent again (a new dispatch; the object is the new log row)',
    details: z.object({ delivery_id: z.string(), dispatch: z.number().int(), event: z.string(), endpoint_id: z.number().int() }),
  },

  // ─── Verification ──────────────────────────────────────────────────────────
  'verification.guard_cleared': {
    object: 'workspace',
    scope: 'mode',
    summary:
      "An owner cleared a destination prefix the fraud guard counted (`prefix`, e.g. `+234803 1`): its hour's starts and verified checks were dropped (what it held, and whether it was blocking)",
    details: z.object({ prefix: z.string().max(20), starts: z.number().int(), verified: z.number().int(), blocking: z.boolean() }),
  },

  // ─── The workspace ───────────────────────────────────────────────────────────
  'workspace.created': {
    object: 'workspace',
    scope: 'business',
    summary: 'The operator made the workspace with the CLI',
    details: z.object({ name: z.string() }),
  },
  'workspace.settings_changed': {
    object: 'workspace',
    scope: 'mode',
    summary:
      'An owner changed the settings of a side of the workspace (`settings`: the names of those that changed; the payout approval thresholds before and after)',
    details: z.object({
      settings: z.array(z.string()),
      payout_approval_thresholds: z.object({ before: z.record(z.string(), z.string()), after: z.record(z.string(), z.string()) }).optional(),
    }),
  },
} as const satisfies Record<string, AuditActionDefinition>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** Every action's name, in catalog order (the `action` filter's values). */
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];

/** The `details` an action's row keeps. */
export type AuditDetails<A extends AuditAction> = z.input<(typeof AUDIT_ACTIONS)[A]['details']>;
