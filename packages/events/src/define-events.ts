import type { z } from 'zod';

/** A closed catalog of events: each name with the zod schema of its `data`. */
export interface EventsDefinition<C extends Record<string, z.ZodType>> {
  /** Each event's `data` schema, by name. */
  schemas: C;
  /** The names, in the order the catalog declares them. */
  names: readonly (keyof C & string)[];
}

/**
 * Declares the events of a catalog once, the way `defineQueue` declares a
 * queue's jobs: `defineEvents({ 'transfer.completed': ZTransaction, ... })`.
 */
export function defineEvents<const C extends Record<string, z.ZodType>>(schemas: C): EventsDefinition<C> {
  return { schemas, names: Object.keys(schemas) };
}

/**
 * A value's shape with its string, number and boolean literals widened: what
 * an emitter may pass for a schema's data. The rows the domain packages render
 * carry a status as the database holds it (a string); the schema narrows it to
 * the values the API promises, as the gateway's `responseOf` allows.
 */
export type Widened<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer E)[]
        ? Widened<E>[]
        : T extends object
          ? { [K in keyof T]: Widened<T[K]> }
          : T;
