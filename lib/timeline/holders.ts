import type { TimelineEvent, Vote } from "./events";

/** One buyer's lane: what its lock and critical section did, in Redis-clock microseconds. */
export interface Holder {
  readonly id: string;
  instance?: string;
  buyer?: string;
  waitFrom?: number;
  acquiredAt?: number;
  /** When the lease runs out, as the holder reckoned it (moved by renewals). */
  expiresAt?: number;
  renewals: number[];
  read?: { t: number; stock: number };
  readRefused?: number;
  /** The accepted stock write, if any. */
  write?: { t: number; stock: number; unit: number; fence?: number };
  refusedWrite?: { t: number; unit?: number; fence?: number; note?: string };
  /**
   * The reconciler put this holder's unit back on the shelf (its order never landed): recorded by
   * GIVE_BACK_UNIT on this holder's lane, from the reconciler's instance.
   */
  givenBack?: { t: number; unit: number };
  /** Left the critical section without writing (sold out, or it gave up). */
  leftAt?: number;
  releasedAt?: number;
  /** busy, unavailable or lost. */
  outcome?: "busy" | "unavailable" | "lost";
  outcomeAt?: number;
  order?: { t: number; unit: number };
  fence?: number;
  token?: string;
  votes?: { t: number; votes: readonly Vote[]; validityMs?: number };
}

/** Groups events by holder, in the order they first appear. Fault events belong to nobody. */
export function buildHolders(events: readonly TimelineEvent[]): Holder[] {
  const byId = new Map<string, Holder>();
  for (const event of events) {
    if (!event.holder) continue;
    let holder = byId.get(event.holder);
    if (!holder) {
      holder = { id: event.holder, renewals: [] };
      byId.set(event.holder, holder);
    }
    if (event.instance) holder.instance ??= event.instance;
    if (event.buyer) holder.buyer ??= event.buyer;
    if (event.fencingToken !== undefined) holder.fence ??= event.fencingToken;
    if (event.lockToken) holder.token ??= event.lockToken;
    switch (event.kind) {
      case "acquire-sent":
        holder.waitFrom ??= event.atUs;
        break;
      case "acquired":
        holder.acquiredAt ??= event.atUs;
        if (event.leaseEndsAtUs !== undefined) holder.expiresAt = event.leaseEndsAtUs;
        break;
      case "renewed":
        holder.renewals.push(event.atUs);
        if (event.leaseEndsAtUs !== undefined) holder.expiresAt = event.leaseEndsAtUs;
        break;
      case "read":
        holder.read ??= { t: event.atUs, stock: event.stock ?? 0 };
        break;
      case "read-refused":
        holder.readRefused ??= event.atUs;
        break;
      case "write":
      case "atomic-take":
        holder.write ??= { t: event.atUs, stock: event.stock ?? 0, unit: event.unit ?? (event.stock ?? 0) + 1, fence: event.fencingToken };
        if (event.kind === "atomic-take") holder.read ??= { t: event.atUs, stock: event.unit ?? 0 };
        break;
      case "write-refused":
        holder.refusedWrite ??= { t: event.atUs, unit: event.unit, fence: event.fencingToken, note: event.note };
        break;
      case "given-back":
        holder.givenBack ??= { t: event.atUs, unit: event.unit ?? event.stock ?? 0 };
        break;
      case "leave":
        holder.leftAt ??= event.atUs;
        break;
      case "released":
        holder.releasedAt ??= event.atUs;
        break;
      case "busy":
      case "unavailable":
      case "lost":
        holder.outcome = event.kind;
        holder.outcomeAt = event.atUs;
        break;
      case "order":
        holder.order = { t: event.atUs, unit: event.unit ?? 0 };
        break;
      case "votes":
        holder.votes = { t: event.atUs, votes: event.votes ?? [], validityMs: event.validityMs };
        break;
      default:
        break;
    }
  }
  return [...byId.values()];
}

/**
 * The write that sold a unit: the holder's accepted write, unless the reconciler gave that unit
 * back to the shelf afterwards (a 'returned' tombstone, no order). A later write of the unit is then
 * a new sale of it, not a second one — as the durable accounting (orders + stock) counts it.
 */
export function soldWrite(holder: Holder): Holder["write"] {
  const { write, givenBack } = holder;
  if (!write) return undefined;
  return givenBack && givenBack.unit === write.unit && givenBack.t >= write.t ? undefined : write;
}

/** The critical section of a holder that got in: from its stock read to its write or leave. */
export function criticalSection(holder: Holder): { from: number; to: number } | undefined {
  if (!holder.read) return undefined;
  const end = holder.write?.t ?? holder.refusedWrite?.t ?? holder.leftAt ?? holder.releasedAt;
  if (end === undefined) return undefined;
  return { from: holder.read.t, to: Math.max(end, holder.read.t) };
}
