/**
 * The holder timeline's events: what each buyer's lock and critical section did, on one clock.
 *
 * Reads and writes of the stock are stamped inside Redis (`TIME` in the critical section's Lua,
 * microseconds), so their order is exact. Client-side steps (waiting, acquired, renewed,
 * released…) are stamped by the app process and moved onto Redis time by an offset measured when
 * the process started; `clockErrorMs` on the timeline says how far such a stamp may be off.
 */
export const EVENT_KINDS = [
  // The lock, seen by its holder (client clock, corrected).
  "acquire-sent",
  "acquired",
  "renewed",
  "renew-failed",
  "lost",
  "released",
  "busy",
  "unavailable",
  // The stock, seen by Redis (Redis clock).
  "read",
  "read-refused",
  "write",
  "write-refused",
  "leave",
  "atomic-take",
  "given-back",
  // The purchase's end.
  "order",
  // Redlock: one acquire's votes, per node.
  "votes",
  // The lab or the control API changed the world.
  "fault-start",
  "fault-end",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** A Redlock node's answer to one acquire. */
export type Vote = "granted" | "held" | "timeout" | "down";

/**
 * One step on the timeline, as the domain reads it. The Redis stream and the JSON kept in
 * Postgres spell these fields with one letter each; ./wire.ts is the only place that knows the
 * letters.
 */
export interface TimelineEvent {
  /** When it happened: microseconds since the Unix epoch, on Redis' clock. */
  readonly atUs: number;
  readonly kind: EventKind;
  /** The holder: the first 8 characters of its purchase's reservation id ("" for faults). */
  readonly holder: string;
  /** The app instance the holder ran on. */
  readonly instance?: string;
  /** The buyer's name (on acquire-sent). */
  readonly buyer?: string;
  /** The stock read, or the stock written. */
  readonly stock?: number;
  /** The unit a write takes (the stock its holder read). */
  readonly unit?: number;
  /** The lock's fencing token, as the holder got it or the fenced store saw it. */
  readonly fencingToken?: number;
  /** The lock's token (its first characters). */
  readonly lockToken?: string;
  /** When the lease runs out, as the holder reckons it: microseconds on Redis' clock. */
  readonly leaseEndsAtUs?: number;
  /** Redlock: each node's vote on one acquire, in the order of the nodes. */
  readonly votes?: readonly Vote[];
  /** Redlock: the validity left after the acquire, ms (negative when it ran out while asking). */
  readonly validityMs?: number;
  /** Faults and refusals: what happened, in words. */
  readonly note?: string;
}
