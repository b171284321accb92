/** The channels a code can travel on. */
export const VERIFICATION_CHANNELS = ['sms', 'voice', 'email'] as const;
export type VerificationChannel = (typeof VERIFICATION_CHANNELS)[number];

export const VERIFICATION_STATUSES = ['pending', 'verified', 'failed', 'expired'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const isPhoneChannel = (channel: VerificationChannel) => channel === 'sms' || channel === 'voice';
