/** The channels a code can travel on (interface: POST /v1/verifications). */
export const VERIFICATION_CHANNELS = ['sms', 'voice', 'email'] as const;
export type TVerificationChannel = (typeof VERIFICATION_CHANNELS)[number];

export const VERIFICATION_STATUSES = ['pending', 'verified', 'failed', 'expired'] as const;
export type TVerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const isPhoneChannel = (channel: TVerificationChannel) => channel === 'sms' || channel === 'voice';
