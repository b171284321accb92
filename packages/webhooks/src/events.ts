import { PING_EVENT } from '@cowrie/events';

/** The subscription that matches every event. */
export const WILDCARD_EVENT = '*';
export const ALL_EVENTS: readonly string[] = [WILDCARD_EVENT];

/** The event the dashboard's test action sends. */
export { PING_EVENT };

/** An endpoint receives an event when its list holds the exact name or `*`. */
export function endpointWantsEvent(subscribed: readonly string[], event: string): boolean {
  return subscribed.includes(WILDCARD_EVENT) || subscribed.includes(event);
}
