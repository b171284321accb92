import { z } from 'zod';
import { emailField } from '@cowrie/core';
import {
  LOGIN_CHALLENGE_TTL_SECONDS,
  PASSWORD_RESET_TTL_MINUTES,
  ZChangePasswordRequest,
  ZUsePasswordLinkRequest,
  type SecondFactorStatus,
} from '@cowrie/accounts';
import { ZTimestamp, named, responseOf } from '../../openapi/schemas';

// Sign-in, passwords and the second factor: the requests and answers of their routes.

export const ZLoginRequest = named(
  'LoginRequest',
  z.object({
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(200),
  }),
);

export const ZSession = named(
  'Session',
  z.object({
    token: z.string().meta({ description: 'Send as Authorization: Bearer <token> to the dashboard routes' }),
    expires_in: z.number().int().meta({ description: 'Seconds' }),
    mfa_required: z.literal(false).meta({ description: 'A session: the sign-in is complete' }),
    password_change_required: z.boolean().meta({
      description: 'Signed in with a one-time password: every dashboard route but POST /auth/password and /auth/logout answers 403 until it is changed',
    }),
    mfa_enrolment_required: z.boolean().meta({
      description:
        'An owner or admin without a second factor under REQUIRE_MFA_FOR_ADMINS: every dashboard route but enrolment (POST /auth/mfa/totp, /auth/mfa/totp/confirm), GET /auth/mfa, POST /auth/password and /auth/logout answers 403 until it is on',
    }),
  }),
);

export const ZMfaChallenge = named(
  'MfaChallenge',
  z.object({
    mfa_required: z
      .literal(true)
      .meta({ description: 'The password was right; the user has a second factor: send a code with this challenge to POST /auth/login/mfa' }),
    challenge: z.string().meta({ description: 'Single use, for this sign-in only' }),
    expires_in: z
      .number()
      .int()
      .meta({ description: `Seconds the challenge stays valid (${LOGIN_CHALLENGE_TTL_SECONDS})` }),
  }),
);

export const ZLoginMfaRequest = named(
  'LoginMfaRequest',
  z.object({
    challenge: z.string().min(1).max(2000),
    code: z.string().trim().min(1).max(64).meta({ description: 'The 6-digit code of the authenticator app, or one of the recovery codes (each works once)' }),
  }),
);

export const ZSignedOut = named('SignedOut', z.object({ signed_out: z.literal(true) }));

export const ZChangePasswordBody = named('ChangePasswordRequest', ZChangePasswordRequest);

export const ZPasswordResetRequest = named('PasswordResetRequest', z.object({ email: emailField }));
export const ZPasswordResetRequested = named(
  'PasswordResetRequested',
  z.object({
    requested: z.literal(true).meta({
      description: `The same for every email: if a user signs in with it, a link to choose a new password (single use, ${PASSWORD_RESET_TTL_MINUTES} minutes) is on its way`,
    }),
  }),
);
export const ZPasswordResetConfirmBody = named('PasswordResetConfirmRequest', ZUsePasswordLinkRequest);
export const ZPasswordSet = named(
  'PasswordSet',
  z.object({
    email: z.string().meta({ description: 'The email to sign in with, with the new password' }),
    password_set: z.literal(true),
  }),
);

const ZCode = z.string().trim().min(1).max(64);
export const ZCodeRequest = named('MfaCodeRequest', z.object({ code: ZCode.meta({ description: 'A 6-digit code of the authenticator app' }) }));

export const ZSecondFactorStatus = named(
  'SecondFactorStatus',
  responseOf<SecondFactorStatus>()(
    z.object({
      totp_enabled: z.boolean().meta({ description: 'Sign-in asks for a code of an authenticator app' }),
      recovery_codes_remaining: z.number().int().meta({ description: 'Unused recovery codes (each works once in place of a code)' }),
      enrolment_required: z
        .boolean()
        .meta({ description: 'An owner or admin under REQUIRE_MFA_FOR_ADMINS without a second factor: nothing else answers until it is on' }),
    }),
  ),
);

export const ZTotpEnrolment = named(
  'TotpEnrolment',
  z.object({
    secret: z.string().meta({ description: 'The TOTP secret (base32), shown this once: type it into an authenticator app, or scan otpauth_url as a QR code' }),
    otpauth_url: z
      .string()
      .meta({ description: '`otpauth://totp/Cowrie:<email>?secret=…&issuer=Cowrie`: draw it as a QR code on the device (never send it to a QR service)' }),
  }),
);

export const ZRecoveryCodes = named(
  'RecoveryCodes',
  z.object({
    recovery_codes: z.array(z.string()).meta({
      description: 'Ten single-use codes (`abcd-efgh-ijkl-mnop`), shown this once (only their hashes are kept): each signs in once in place of a code',
    }),
  }),
);

export const ZStepUpRequest = named(
  'StepUpRequest',
  z
    .object({
      code: ZCode.optional().meta({ description: 'A user with a second factor: a 6-digit code of it, or a recovery code' }),
      password: z.string().min(1).max(200).optional().meta({ description: 'A user without a second factor: their password' }),
    })
    .meta({ description: 'One of code (a user with a second factor) and password (a user without one)' }),
);

export const ZSteppedUp = named(
  'SteppedUp',
  z.object({ stepped_up_until: ZTimestamp.meta({ description: 'Guarded changes answer this session until then (STEP_UP_SECONDS from now)' }) }),
);
