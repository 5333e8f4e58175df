import type { TimelineEvent } from "./events";
import { buildHolders, criticalSection, soldWrite, type Holder } from "./holders";

/**
 * What went wrong, found in the events alone: critical sections of two holders that overlap in
 * Redis time, a unit sold by more than one holder's write (a write whose unit the reconciler gave
 * back to the shelf sold nothing: see `soldWrite`), a write that landed after its holder's
 * lease had run out, and a stale write a fenced store refused (the fix doing its job).
 *
 * Each anomaly is its kind and its facts (the holders by id, the stock read, the unit, the
 * fencing token…): the pages say it in the reader's language with the people's names
 * (messages `anomalies`, app/…/timeline/anomaly-text.ts). `note` is the same sentence in English
 * with buyer ids, for the JSON export and the API.
 */
export type Anomaly =
  | {
      readonly kind: "overlap"; readonly t: number; readonly until: number; readonly holders: readonly [string, string];
      /** The stock both holders read, when they read the same one; `soldTwice`: both then wrote it. */
      readonly read?: number; readonly soldTwice?: boolean; readonly note: string;
    }
  | { readonly kind: "unit-twice"; readonly t: number; readonly unit: number; readonly holders: readonly string[]; readonly note: string }
  | { readonly kind: "write-after-expiry"; readonly t: number; readonly holders: readonly [string]; readonly lateMs: number; readonly note: string }
  | {
      readonly kind: "refused-write"; readonly t: number; readonly holders: readonly [string];
      /** What the fenced store refused: the holder's write, or its read (a read refused before it wrote). */
      readonly access: "write" | "read"; readonly fence?: number; readonly note: string;
    };

export interface AnomalyReport {
  readonly anomalies: readonly Anomaly[];
  /** Extra sales of units written by more than one holder: Σ (writers − 1). */
  readonly unitsSoldTwice: number;
  readonly overlaps: number;
  readonly writesAfterExpiry: number;
  readonly refusedWrites: number;
}

/** How a holder is named in notes: its buyer when known, else its id. */
export const holderName = (holder: Pick<Holder, "id" | "buyer">) => holder.buyer ?? holder.id;

export function detectAnomalies(events: readonly TimelineEvent[]): AnomalyReport {
  const holders = buildHolders(events);
  const byId = new Map(holders.map((holder) => [holder.id, holder]));
  const anomalies: Anomaly[] = [];

  // Overlapping critical sections: sweep them in order of their reads.
  const sections = holders
    .map((holder) => ({ holder, section: criticalSection(holder) }))
    .filter((entry): entry is { holder: Holder; section: { from: number; to: number } } => entry.section !== undefined)
    .sort((a, b) => a.section.from - b.section.from);
  const open: typeof sections = [];
  let overlaps = 0;
  for (const entry of sections) {
    for (let index = open.length - 1; index >= 0; index -= 1) {
      if (open[index]!.section.to <= entry.section.from) open.splice(index, 1);
    }
    for (const other of open) {
      overlaps += 1;
      const a = other.holder;
      const b = entry.holder;
      const sameRead = a.read && b.read && a.read.stock === b.read.stock;
      const bothWrote = soldWrite(a) && soldWrite(b);
      anomalies.push({
        kind: "overlap",
        t: entry.section.from,
        until: Math.min(other.section.to, entry.section.to),
        holders: [a.id, b.id],
        ...(sameRead ? { read: a.read!.stock, soldTwice: Boolean(bothWrote) } : {}),
        note: sameRead
          ? `${holderName(a)} and ${holderName(b)} both read ${a.read!.stock}${bothWrote ? ` — unit ${a.read!.stock} sold twice` : ""}`
          : `${holderName(a)} and ${holderName(b)} were in the critical section at the same time`,
      });
    }
    open.push(entry);
  }

  // The same unit sold by more than one holder. A write whose unit was given back sold nothing: the
  // unit's next write is a new sale of it. Two writes with no give-back between stay a double sale.
  const writers = new Map<number, Holder[]>();
  for (const holder of holders) {
    const write = soldWrite(holder);
    if (!write) continue;
    const list = writers.get(write.unit) ?? [];
    list.push(holder);
    writers.set(write.unit, list);
  }
  let unitsSoldTwice = 0;
  for (const [unit, list] of writers) {
    if (list.length < 2) continue;
    unitsSoldTwice += list.length - 1;
    list.sort((a, b) => a.write!.t - b.write!.t);
    anomalies.push({
      kind: "unit-twice",
      t: list[1]!.write!.t,
      unit,
      holders: list.map((holder) => holder.id),
      note: `unit ${unit} written by ${list.length} holders: ${list.map(holderName).join(", ")}`,
    });
  }

  let writesAfterExpiry = 0;
  let refusedWrites = 0;
  for (const holder of byId.values()) {
    if (holder.write && holder.expiresAt !== undefined && holder.write.t > holder.expiresAt) {
      writesAfterExpiry += 1;
      const lateMs = (holder.write.t - holder.expiresAt) / 1000;
      anomalies.push({
        kind: "write-after-expiry",
        t: holder.write.t,
        holders: [holder.id],
        lateMs,
        note: `${holderName(holder)} wrote ${lateMs.toFixed(0)} ms after its lease ran out`,
      });
    }
    const refused = holder.refusedWrite ?? (holder.readRefused !== undefined ? { t: holder.readRefused, fence: holder.fence } : undefined);
    if (refused) {
      refusedWrites += 1;
      anomalies.push({
        kind: "refused-write",
        t: refused.t,
        holders: [holder.id],
        access: holder.refusedWrite ? "write" : "read",
        ...(refused.fence !== undefined ? { fence: refused.fence } : {}),
        note: `the store refused ${holderName(holder)}'s stale ${holder.refusedWrite ? "write" : "read"}${refused.fence !== undefined ? ` (fencing token ${refused.fence})` : ""}`,
      });
    }
  }

  anomalies.sort((a, b) => a.t - b.t);
  return { anomalies, unitsSoldTwice, overlaps, writesAfterExpiry, refusedWrites };
}
