import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { emailField } from '@cowrie/core';
import { isPhoneChannel, type VerificationChannel } from './channels';

export type DestinationResult = { kind: 'valid'; destination: string } | { kind: 'invalid'; message: string };

/**
 * A phone destination as E.164, limited to Nigeria: `+234` followed by 10
 * digits. Written as a Nigerian number without the country code
 * (`0801 234 5678`) is accepted and normalised. libphonenumber-js parses;
 * the API's rule decides, so the sandbox's `+2340000000000` passes although no operator owns it.
 */
export function normalisePhone(raw: string): DestinationResult {
  const trimmed = raw.trim();
  if (!/^[+\d\s().-]+$/.test(trimmed)) return { kind: 'invalid', message: 'must be an E.164 phone number such as +2348012345678' };
  const parsed = parsePhoneNumberFromString(trimmed, { defaultCountry: 'NG', extract: false });
  if (!parsed) return { kind: 'invalid', message: 'must be an E.164 phone number such as +2348012345678' };
  if (parsed.countryCallingCode !== '234') {
    return { kind: 'invalid', message: 'must be a Nigerian phone number (+234 followed by 10 digits)' };
  }
  if (parsed.ext || !/^\d{10}$/.test(parsed.nationalNumber)) {
    return { kind: 'invalid', message: 'must be a Nigerian phone number (+234 followed by 10 digits)' };
  }
  return { kind: 'valid', destination: parsed.number };
}

/** An email destination, trimmed and lowercased. */
export function normaliseEmail(raw: string): DestinationResult {
  const email = raw.trim().toLowerCase();
  if (!emailField.safeParse(email).success) {
    return { kind: 'invalid', message: 'must be a valid email address' };
  }
  return { kind: 'valid', destination: email };
}

export function normaliseDestination(channel: VerificationChannel, raw: string): DestinationResult {
  return isPhoneChannel(channel) ? normalisePhone(raw) : normaliseEmail(raw);
}

/**
 * The destination as responses show it. Phones keep `+234`, the first three and
 * the last three national digits (`+234801****678`); emails keep the first and
 * last character of the local part and the domain (`a***e@example.com`).
 */
export function maskDestination(destination: string): string {
  const at = destination.lastIndexOf('@');
  if (at > 0) {
    const local = destination.slice(0, at);
    const domain = destination.slice(at);
    if (local.length === 1) return `*${domain}`;
    if (local.length === 2) return `${local[0]}*${domain}`;
    return `${local[0]}${'*'.repeat(local.length - 2)}${local[local.length - 1]}${domain}`;
  }
  const match = /^(\+234)(\d{3})(\d+)(\d{3})$/.exec(destination);
  if (match) return `${match[1]}${match[2]}${'*'.repeat(match[3]!.length)}${match[4]}`;
  // Not a number this service stores; show only its last two characters.
  return `${'*'.repeat(Math.max(0, destination.length - 2))}${destination.slice(-2)}`;
}
