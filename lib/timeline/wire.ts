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
  return wireOf(event, event.atUs, event.leaseEndsAtUs);
}

/**
 * A step's letters with its times given apart (the recorder stamps a buffered step only when it
 * sends it). Built by assignment, not by a spread per field: the recorder spells every step a
 * buyer notes, and thirteen conditional spreads per step were a third of the timeline's CPU on
 * an app instance (docs/benchmarks.md, "What the timeline's recording cost").
 */
export function wireOf(step: Omit<TimelineEvent, "atUs" | "leaseEndsAtUs">, atUs: number, leaseEndsAtUs?: number): WireEvent {
  const wire: { -readonly [K in keyof WireEvent]: WireEvent[K] } = { t: atUs, kind: step.kind, h: step.holder };
  if (step.instance !== undefined) wire.i = step.instance;
  if (step.buyer !== undefined) wire.b = step.buyer;
  if (step.stock !== undefined) wire.s = step.stock;
  if (step.unit !== undefined) wire.u = step.unit;
  if (step.fencingToken !== undefined) wire.f = step.fencingToken;
  if (step.lockToken !== undefined) wire.k = step.lockToken;
  if (leaseEndsAtUs !== undefined) wire.exp = leaseEndsAtUs;
  if (step.votes !== undefined) wire.votes = step.votes;
  if (step.validityMs !== undefined) wire.validityMs = step.validityMs;
  if (step.note !== undefined) wire.note = step.note;
  return wire;
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
