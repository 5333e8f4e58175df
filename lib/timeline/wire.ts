import type { EventKind, TimelineEvent, Vote } from "./events";

/**
 * The timeline's events as they are written down: one letter a field. Domain code never sees the
 * letters; they stay here so the critical section's Lua, streams still recording and timelines
 * already kept in Postgres read as before. Two spellings exist:
 *
 * - JSON (`WireEvent`), in the recorder's stream entries (field `batch`, a list) and in
 *   `sale_timelines.events`: t atUs · kind · h holder · i instance · b buyer · s stock · u unit ·
 *   f fencingToken · k lockToken · exp leaseEndsAtUs · votes · validityMs · note.
 * - Flat stream fields, one entry per event, from RECORD_EVENT in
 *   lib/purchase/critical-section-scripts.ts: `t`, `k`, `h`, `i`, then any of `s`, `u`, `f`,
 *   `note`, every value a string. There `k` is the event's KIND, not the lock token.
 */
export interface WireEvent {
  readonly t: number;
  readonly kind: string;
  readonly h: string;
  readonly i?: string;
  readonly b?: string;
  readonly s?: number;
  readonly u?: number;
  readonly f?: number;
  readonly k?: string;
  readonly exp?: number;
  readonly votes?: readonly Vote[];
  readonly validityMs?: number;
  readonly note?: string;
}

/** Names → letters: the one place an event is spelt for the stream or Postgres. */
export function toWire(event: TimelineEvent): WireEvent {
  return {
    t: event.atUs,
    kind: event.kind,
    h: event.holder,
    ...(event.instance !== undefined && { i: event.instance }),
    ...(event.buyer !== undefined && { b: event.buyer }),
    ...(event.stock !== undefined && { s: event.stock }),
    ...(event.unit !== undefined && { u: event.unit }),
    ...(event.fencingToken !== undefined && { f: event.fencingToken }),
    ...(event.lockToken !== undefined && { k: event.lockToken }),
    ...(event.leaseEndsAtUs !== undefined && { exp: event.leaseEndsAtUs }),
    ...(event.votes !== undefined && { votes: event.votes }),
    ...(event.validityMs !== undefined && { validityMs: event.validityMs }),
    ...(event.note !== undefined && { note: event.note }),
  };
}

/** Letters → names: the one place an event read from the stream or Postgres gets its names. */
export function fromWire(wire: WireEvent): TimelineEvent {
  return {
    atUs: wire.t,
    kind: wire.kind as EventKind,
    holder: wire.h ?? "",
    ...(wire.i !== undefined && { instance: wire.i }),
    ...(wire.b !== undefined && { buyer: wire.b }),
    ...(wire.s !== undefined && { stock: wire.s }),
    ...(wire.u !== undefined && { unit: wire.u }),
    ...(wire.f !== undefined && { fencingToken: wire.f }),
    ...(wire.k !== undefined && { lockToken: wire.k }),
    ...(wire.exp !== undefined && { leaseEndsAtUs: wire.exp }),
    ...(wire.votes !== undefined && { votes: wire.votes }),
    ...(wire.validityMs !== undefined && { validityMs: wire.validityMs }),
    ...(wire.note !== undefined && { note: wire.note }),
  };
}

/**
 * The events of one stream entry (XRANGE's field list): a recorder's batch, or one read or write
 * the Lua recorded as flat fields. An entry that cannot be read gives none: the timeline is a
 * record, and one lost entry must not hide the rest.
 */
export function eventsOfStreamEntry(fields: readonly string[]): TimelineEvent[] {
  const raw: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2) raw[fields[index]!] = fields[index + 1]!;
  if (raw.batch) {
    try {
      return eventsOfJson(JSON.parse(raw.batch));
    } catch {
      return [];
    }
  }
  const wire = flatFieldsToWire(raw);
  return wire ? [fromWire(wire)] : [];
}

/** The JSON `sale_timelines.events` keeps: the letters, as timelines have always been kept. */
export function storedJsonOf(events: readonly TimelineEvent[]): WireEvent[] {
  return events.map(toWire);
}

/**
 * Events in the JSON spelling: a recorder's batch, or a kept timeline's `sale_timelines.events`
 * (kept in this spelling since timelines were first kept). Entries without a time or a kind are
 * left out.
 */
export function eventsOfJson(json: unknown): TimelineEvent[] {
  if (!Array.isArray(json)) return [];
  return (json as WireEvent[]).filter((wire) => typeof wire?.t === "number" && typeof wire.kind === "string").map(fromWire);
}

/**
 * The Lua's flat fields, in the JSON spelling: `k` is the kind here, and numbers come as strings.
 * `b`, `exp`, `votes` and `validityMs` are read too, though the Lua writes none of them today.
 */
function flatFieldsToWire(raw: Readonly<Record<string, string>>): WireEvent | undefined {
  if (!raw.t || !raw.k) return undefined;
  const num = (value: string | undefined) => (value === undefined || value === "" ? undefined : Number(value));
  const [s, u, f, exp, validityMs] = [num(raw.s), num(raw.u), num(raw.f), num(raw.exp), num(raw.validityMs)];
  return {
    t: Number(raw.t),
    kind: raw.k,
    h: raw.h ?? "",
    ...(raw.i ? { i: raw.i } : {}),
    ...(raw.b ? { b: raw.b } : {}),
    ...(s !== undefined && { s }),
    ...(u !== undefined && { u }),
    ...(f !== undefined && { f }),
    ...(exp !== undefined && { exp }),
    ...(raw.votes ? { votes: raw.votes.split(",") as Vote[] } : {}),
    ...(validityMs !== undefined && { validityMs }),
    ...(raw.note ? { note: raw.note } : {}),
  };
}
