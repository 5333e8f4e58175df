import type { TimelineEvent } from "./events";
import { buildHolders, type Holder } from "./holders";

/** One row of the diagram: an instance's heading, or a holder's lane. */
export type Row = { readonly kind: "instance"; readonly instance: string } | { readonly kind: "lane"; readonly holder: Holder };

export interface Layout {
  readonly rows: readonly Row[];
  /** Lane index (in `rows`) of each holder id. */
  readonly rowOf: ReadonlyMap<string, number>;
  /** Time span of the events, µs. */
  readonly start: number;
  readonly end: number;
  readonly faults: readonly { readonly from: number; readonly to: number; readonly note: string }[];
}

/** Lanes grouped by instance (in order of first appearance), holders in order of their first event. */
export function layOut(events: readonly TimelineEvent[]): Layout {
  const holders = buildHolders(events);
  const instances: string[] = [];
  for (const holder of holders) {
    const instance = holder.instance ?? "unknown";
    if (!instances.includes(instance)) instances.push(instance);
  }
  const rows: Row[] = [];
  const rowOf = new Map<string, number>();
  for (const instance of instances) {
    rows.push({ kind: "instance", instance });
    for (const holder of holders) {
      if ((holder.instance ?? "unknown") !== instance) continue;
      rowOf.set(holder.id, rows.length);
      rows.push({ kind: "lane", holder });
    }
  }
  const start = events.length ? events[0]!.t : 0;
  const end = events.length ? Math.max(...events.map((event) => event.t), start + 1) : 1;
  return { rows, rowOf, start, end, faults: faultBands(events, end) };
}

/** Fault bands: each start paired with the next end of the same subject (or "every fault put back"). */
export function faultBands(events: readonly TimelineEvent[], end: number): Layout["faults"] {
  const subject = (note = "") => note.replace(/ (stopped|started|paused|resumed|killed)$/, "");
  const open: { from: number; note: string }[] = [];
  const bands: { from: number; to: number; note: string }[] = [];
  for (const event of events) {
    if (event.kind === "fault-start") open.push({ from: event.t, note: event.note ?? "fault" });
    if (event.kind !== "fault-end") continue;
    const all = event.note === "every fault put back";
    for (let index = open.length - 1; index >= 0; index -= 1) {
      if (all || subject(open[index]!.note) === subject(event.note)) {
        bands.push({ ...open[index]!, to: event.t });
        open.splice(index, 1);
        if (!all) break;
      }
    }
  }
  for (const band of open) bands.push({ ...band, to: end });
  return bands.sort((a, b) => a.from - b.from);
}

/** A linear scale from [d0, d1] onto [r0, r1]. */
export function scale(d0: number, d1: number, r0: number, r1: number): (value: number) => number {
  const span = d1 - d0 || 1;
  return (value) => r0 + ((value - d0) / span) * (r1 - r0);
}

/** Evenly spaced "nice" ticks (1, 2 or 5 × 10^n) covering [from, to], about `count` of them. */
export function niceTicks(from: number, to: number, count = 8): number[] {
  const span = Math.max(to - from, 1e-9);
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let tick = Math.ceil(from / step) * step; tick <= to + 1e-9; tick += step) ticks.push(Number(tick.toFixed(6)));
  return ticks;
}

/** The window [from, to] zoomed by `factor` (< 1 zooms in) around `center`, kept inside [start, end]. */
export function zoomWindow(window: { from: number; to: number }, factor: number, center: number, bounds: { start: number; end: number }) {
  const full = bounds.end - bounds.start;
  const width = Math.min(full, Math.max((window.to - window.from) * factor, full / 10_000, 1));
  let from = center - width / 2;
  from = Math.min(Math.max(from, bounds.start), bounds.end - width);
  return { from, to: from + width };
}
