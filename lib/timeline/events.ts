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

export interface TimelineEvent {
  /** Microseconds since the Unix epoch, on Redis' clock. */
  readonly t: number;
  readonly kind: EventKind;
  /** The holder: the first 8 characters of its purchase's reservation id ("" for faults). */
  readonly h: string;
  /** App instance. */
  readonly i?: string;
  /** Buyer name (on acquire-sent). */
  readonly b?: string;
  /** Stock read, or stock written. */
  readonly s?: number;
  /** The unit a write takes (the stock its holder read). */
  readonly u?: number;
  /** Fencing token. */
  readonly f?: number;
  /** Lock token (first characters). */
  readonly k?: string;
  /** Microseconds on Redis' clock when the lease runs out, as the holder reckons it. */
  readonly exp?: number;
  /** Redlock: each node's vote, and the validity left after the acquire (ms). */
  readonly votes?: readonly Vote[];
  readonly validityMs?: number;
  /** Faults and refusals: what happened, in words. */
  readonly note?: string;
}

