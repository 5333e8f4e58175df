import type { Anomaly } from "./anomalies";
import type { TimelineEvent, Vote } from "./events";
import { buildHolders, criticalSection, type Holder } from "./holders";

/**
 * The diagram's fixed geometry, in SVG user units: the SVG is 1000 units wide and scaled to its
 * box. Text is 14 units so that it is drawn at 12 px or more down to a box of about 860 px (the
 * timeline page's diagram column at 1280×720 is about 900 px; the projector's card more).
 */
export const DIAGRAM = Object.freeze({
  width: 1000,
  /** Where the plot starts: labels sit in the column to its left. */
  left: 150,
  right: 16,
  /** Above the first lane: the time axis' labels. */
  top: 30,
  fontSize: 14,
  /**
   * A lane is a line of labels (read, wrote, busy…) above a thinner bar: a label drawn on the bar
   * at the same height was hidden by it, and by the next holder's bar.
   */
  laneHeight: 34,
  /** From a lane's top: the labels' baseline, then the bar (its descenders clear the bar). */
  labelBaseline: 14,
  barTop: 18,
  barHeight: 11,
  /** Between the last lane and the first Redis node's row: the rows' heading and the vote key. */
  nodeHeadHeight: 30,
  nodeRowHeight: 24,
  /** Below the last row: the fault bands' notes. */
  bottom: 20,
  /** Between two rows of fault notes. */
  faultLabelRow: 16,
});

/** One row of the diagram: an instance's heading, or a holder's lane. */
export type Row = { readonly kind: "instance"; readonly instance: string } | { readonly kind: "lane"; readonly holder: Holder };

export interface Layout {
  readonly rows: readonly Row[];
  /** Lane index (in `rows`) of each holder id. */
  readonly rowOf: ReadonlyMap<string, number>;
  /** Time span of the events, µs. */
  readonly start: number;
  readonly end: number;
  /** `instance`: the app instance whose lanes the fault affects (a cut of its links); absent, every lane. */
  readonly faults: readonly { readonly from: number; readonly to: number; readonly note: string; readonly instance?: string }[];
  /** Redlock: one row per Redis node, below the lanes; empty when no acquire recorded votes. */
  readonly nodes: readonly NodeRow[];
}

/** One Redlock acquire's answer from one node. */
export interface VoteMark {
  /** When the holder had every node's answer, µs. */
  readonly t: number;
  readonly holder: string;
  readonly buyer?: string;
  readonly vote: Vote;
  /** How many nodes granted this acquire, of how many asked. */
  readonly granted: number;
  readonly asked: number;
  /** Validity the holder had left once the answers were in, ms; negative when it ran out while asking. */
  readonly validityMs?: number;
  /**
   * A quorum granted and validity was left: the holder got the lock until `t + validityMs`.
   * Otherwise the strategy released every node at once, so no validity is drawn.
   */
  readonly won: boolean;
}

export interface NodeRow {
  /** 1-based, in the order the votes list the nodes. */
  readonly node: number;
  readonly label: string;
  readonly marks: readonly VoteMark[];
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
  const start = events.length ? events[0]!.atUs : 0;
  const end = events.length ? Math.max(...events.map((event) => event.atUs), start + 1) : 1;
  return { rows, rowOf, start, end, faults: faultBands(events, end), nodes: nodeRows(events) };
}

/** Holders left out of the default window on one side of it. */
export interface Outliers {
  readonly holders: readonly string[];
  /** Distinct buyers among them (a buyer who tried again is one). */
  readonly buyers: number;
  /** From the first one's first event to the last one's last, µs. */
  readonly from: number;
  readonly to: number;
}

/** The window a timeline opens on, and who lies outside it. */
export interface DefaultWindow {
  readonly from: number;
  readonly to: number;
  readonly earlier?: Outliers;
  readonly later?: Outliers;
}

/** At most this share of the holders may be left out: two groups of like size are both shown. */
const OUTLIER_SHARE = 0.25;
/**
 * Holders are left out only across a gap this many times as long as what is kept: showing them
 * would squeeze the rest into a third of the width or less.
 */
const OUTLIER_GAP = 2;
/** Room either side of the holders kept, as a share of their span (at least `BULK_PAD_MIN_US`). */
const BULK_PAD_SHARE = 0.04;
const BULK_PAD_MIN_US = 1000;

/** When a holder did anything: its first event to its last (the lease's end is a promise, not an event). */
function activity(holder: Holder): { from: number; to: number } | undefined {
  const times = [
    holder.waitFrom, holder.acquiredAt, holder.read?.t, holder.readRefused, holder.write?.t, holder.refusedWrite?.t,
    holder.givenBack?.t, holder.leftAt, holder.releasedAt, holder.outcomeAt, holder.order?.t, holder.votes?.t, ...holder.renewals,
  ].filter((time): time is number => time !== undefined);
  return times.length ? { from: Math.min(...times), to: Math.max(...times) } : undefined;
}

/**
 * Where most holders' activity lies: a class's 2-second burst, not stretched to 40 s by one late
 * buyer. Holders whose activity touches or overlaps form groups; a group at either end is left
 * out when it holds at most a quarter of the holders and a gap at least twice the kept span sets it
 * apart. Of the ways to do so, the one leaving out the fewest holders wins (then the narrowest).
 * With nothing left out, the window is the whole recorded span, faults and all.
 */
export function defaultWindow(layout: Pick<Layout, "rows" | "start" | "end">): DefaultWindow {
  const whole = { from: layout.start, to: layout.end };
  const spans = layout.rows.flatMap((row) => {
    const span = row.kind === "lane" ? activity(row.holder) : undefined;
    return span && row.kind === "lane" ? [{ ...span, holder: row.holder }] : [];
  }).sort((a, b) => a.from - b.from);
  const groups: { from: number; to: number; holders: Holder[] }[] = [];
  for (const span of spans) {
    const last = groups.at(-1);
    if (last && span.from <= last.to) {
      last.to = Math.max(last.to, span.to);
      last.holders.push(span.holder);
    } else groups.push({ from: span.from, to: span.to, holders: [span.holder] });
  }
  const total = spans.length;
  const before = [0];
  for (const group of groups) before.push(before.at(-1)! + group.holders.length);
  const gap = (index: number) => groups[index + 1]!.from - groups[index]!.to;
  // The groups every kept range must hold (at most a quarter may go on either side) span at least
  // `core`: only gaps twice that long can be cuts, which keeps a long sequential run from
  // trying every pair of its thousands of groups.
  const lastFirst = before.findLastIndex((count) => count <= total * OUTLIER_SHARE);
  const firstLast = before.findIndex((count) => total - count <= total * OUTLIER_SHARE) - 1;
  const core = lastFirst <= firstLast && firstLast < groups.length ? groups[firstLast]!.to - groups[lastFirst]!.from : 0;
  const firsts = groups.flatMap((_, index) => (index === 0 || (before[index]! <= total * OUTLIER_SHARE && gap(index - 1) >= OUTLIER_GAP * core) ? [index] : []));
  const lasts = groups.flatMap((_, index) =>
    index === groups.length - 1 || (total - before[index + 1]! <= total * OUTLIER_SHARE && gap(index) >= OUTLIER_GAP * core) ? [index] : []);
  let best: { first: number; last: number; left: number; span: number; gap: number } | undefined;
  for (const first of firsts) {
    for (const last of lasts) {
      if (last < first || (first === 0 && last === groups.length - 1)) continue;
      const left = total - (before[last + 1]! - before[first]!);
      if (left > total * OUTLIER_SHARE) continue;
      const span = groups[last]!.to - groups[first]!.from;
      const nearest = Math.min(first > 0 ? gap(first - 1) : Infinity, last < groups.length - 1 ? gap(last) : Infinity);
      if (nearest < OUTLIER_GAP * span) continue;
      if (!best || left < best.left || (left === best.left && span < best.span)) best = { first, last, left, span, gap: nearest };
    }
  }
  if (!best) return whole;
  // The room either side never reaches halfway to the holders left out.
  const pad = Math.min(Math.max(best.span * BULK_PAD_SHARE, BULK_PAD_MIN_US), best.gap / 2);
  const outliers = (from: number, to: number): Outliers | undefined => {
    const holders = groups.slice(from, to).flatMap((group) => group.holders);
    if (!holders.length) return undefined;
    return {
      holders: holders.map((holder) => holder.id),
      buyers: new Set(holders.map((holder) => holder.buyer ?? holder.id)).size,
      from: groups[from]!.from,
      to: Math.max(...groups.slice(from, to).map((group) => group.to)),
    };
  };
  const earlier = outliers(0, best.first);
  const later = outliers(best.last + 1, groups.length);
  return {
    from: earlier ? Math.max(groups[best.first]!.from - pad, layout.start) : layout.start,
    to: later ? Math.min(groups[best.last]!.to + pad, layout.end) : layout.end,
    ...(earlier && { earlier }),
    ...(later && { later }),
  };
}

/** The colours a vote is shown with, in the node rows and the legend (its words are messages: `votes`). */
export const VOTE_COLOURS: Readonly<Record<Vote, string>> = Object.freeze({
  granted: "#1f8a4c",
  held: "#c98a00",
  timeout: "#7a7a7a",
  down: "#c62828",
});

/**
 * Redlock's votes turned sideways: one row per node, one mark per acquire attempt (retries
 * included), in time order. The events name nodes only by their place in the votes list.
 */
export function nodeRows(events: readonly TimelineEvent[]): NodeRow[] {
  const buyerOf = new Map<string, string>();
  for (const event of events) if (event.holder && event.buyer && !buyerOf.has(event.holder)) buyerOf.set(event.holder, event.buyer);
  const acquires = events.filter((event) => event.kind === "votes" && event.votes?.length).sort((a, b) => a.atUs - b.atUs);
  const count = acquires.reduce((most, event) => Math.max(most, event.votes!.length), 0);
  const rows = Array.from({ length: count }, (_, index) => ({ node: index + 1, label: `node ${index + 1}`, marks: [] as VoteMark[] }));
  for (const event of acquires) {
    const votes = event.votes!;
    const granted = votes.filter((vote) => vote === "granted").length;
    const quorum = Math.floor(votes.length / 2) + 1;
    const won = granted >= quorum && (event.validityMs === undefined || event.validityMs > 0);
    votes.forEach((vote, index) => {
      rows[index]!.marks.push({
        t: event.atUs,
        holder: event.holder,
        buyer: buyerOf.get(event.holder),
        vote,
        granted,
        asked: votes.length,
        ...(event.validityMs !== undefined && { validityMs: event.validityMs }),
        won,
      });
    });
  }
  return rows;
}

/** The top of row `row` of `layout.rows` (an instance heading or a lane). */
export const laneTop = (row: number) => DIAGRAM.top + row * DIAGRAM.laneHeight;

/** The top of the `index`-th (0-based) Redis node's row. */
export const nodeRowTop = (layout: Pick<Layout, "rows">, index: number) =>
  laneTop(layout.rows.length) + DIAGRAM.nodeHeadHeight + index * DIAGRAM.nodeRowHeight;

/** The whole diagram's height: lanes, then the node rows if any, then the fault notes. */
export function diagramHeight(layout: Pick<Layout, "rows" | "nodes">): number {
  const nodes = layout.nodes.length ? DIAGRAM.nodeHeadHeight + layout.nodes.length * DIAGRAM.nodeRowHeight : 0;
  return laneTop(layout.rows.length) + nodes + DIAGRAM.bottom;
}

/** A vote mark where it is drawn; marks of the same vote closer than `MERGE_UNITS` are drawn once. */
export interface PlacedVote {
  readonly x: number;
  readonly mark: VoteMark;
  /** Where the validity bar ends, on a granted vote of an acquire that won. */
  readonly validUntilX?: number;
  /** Other acquires drawn under this same mark. */
  readonly more: number;
}

export interface PlacedNodeRow {
  readonly node: number;
  readonly label: string;
  readonly y: number;
  readonly votes: readonly PlacedVote[];
}

/** Marks nearer than this (SVG units) with the same vote merge: a big run draws a mark per pixel, not per acquire. */
const MERGE_UNITS = 2;

/**
 * The node rows placed on the diagram for the time window shown: marks outside it (and whose
 * validity does not reach into it) are left out.
 */
export function placeNodeRows(layout: Layout, x: (t: number) => number, window: { readonly from: number; readonly to: number }): PlacedNodeRow[] {
  return layout.nodes.map((row, index) => {
    const votes: PlacedVote[] = [];
    for (const mark of row.marks) {
      const validUntil = mark.won && mark.vote === "granted" && mark.validityMs !== undefined ? mark.t + mark.validityMs * 1000 : undefined;
      if (mark.t > window.to || (validUntil ?? mark.t) < window.from) continue;
      const placed: PlacedVote = { x: x(mark.t), mark, more: 0, ...(validUntil !== undefined && { validUntilX: x(validUntil) }) };
      const last = votes[votes.length - 1];
      if (last && last.mark.vote === mark.vote && placed.x - last.x < MERGE_UNITS) {
        const reach = Math.max(last.validUntilX ?? -Infinity, placed.validUntilX ?? -Infinity);
        votes[votes.length - 1] = { ...last, more: last.more + 1, ...(Number.isFinite(reach) && { validUntilX: reach }) };
        continue;
      }
      votes.push(placed);
    }
    return { node: row.node, label: row.label, y: nodeRowTop(layout, index), votes };
  });
}

/** The holder of a lane, by id. */
export function holderOf(layout: Pick<Layout, "rows" | "rowOf">, id: string): Holder | undefined {
  const row = layout.rows[layout.rowOf.get(id) ?? -1];
  return row?.kind === "lane" ? row.holder : undefined;
}

/** Room either side of a focused anomaly: a share of its span, at least this many µs. */
const FOCUS_PAD_SHARE = 0.15;
const FOCUS_PAD_MIN_US = 1000;

/**
 * The time window that shows an anomaly whole: its own span (an overlap's start to end) and the
 * critical sections of the holders it names, so both reads and both writes are on screen, with
 * room either side. Kept inside the recorded span.
 */
export function anomalyWindow(anomaly: Anomaly, layout: Layout): { from: number; to: number } {
  const times = [anomaly.t, anomaly.kind === "overlap" ? anomaly.until : anomaly.t];
  for (const id of anomaly.holders) {
    const holder = holderOf(layout, id);
    const section = holder && criticalSection(holder);
    if (section) times.push(section.from, section.to);
    if (anomaly.kind === "write-after-expiry" && holder?.expiresAt !== undefined) times.push(holder.expiresAt);
  }
  const from = Math.min(...times);
  const to = Math.max(...times);
  const pad = Math.max((to - from) * FOCUS_PAD_SHARE, FOCUS_PAD_MIN_US);
  const full = layout.end - layout.start;
  const width = Math.min(full, to - from + 2 * pad);
  const start = Math.min(Math.max(from - pad, layout.start), layout.end - width);
  return { from: start, to: start + width };
}

/** The rows an anomaly names, as the span of SVG units from the top of the first to the bottom of the last. */
export function anomalyRows(anomaly: Pick<Anomaly, "holders">, layout: Pick<Layout, "rowOf">): { top: number; bottom: number } | undefined {
  const rows = anomaly.holders.flatMap((id) => (layout.rowOf.has(id) ? [layout.rowOf.get(id)!] : []));
  if (!rows.length) return undefined;
  return { top: laneTop(Math.min(...rows)), bottom: laneTop(Math.max(...rows) + 1) };
}

/**
 * Where to scroll (px) so the span [top, bottom] of the scrolled content shows in a view `height`
 * px tall whose top `inset` px a sticky header covers. Not at all when it shows already (given the
 * view's `scrollTop`); else to `anchor` (the diagram's head: its key and time axis) when the span
 * fits below it; else with `top` just under the inset. A span taller than the view shows its first
 * lane; the rest is found by its highlight.
 */
export function scrollTopFor(
  span: { readonly top: number; readonly bottom: number },
  view: { readonly height: number; readonly contentHeight: number; readonly scrollTop?: number; readonly inset?: number; readonly anchor?: number },
  margin = 8,
): number {
  const { height, contentHeight, scrollTop, inset = 0, anchor = 0 } = view;
  const max = Math.max(0, contentHeight - height);
  const clamp = (top: number) => Math.min(Math.max(top, 0), max);
  if (scrollTop !== undefined && span.top - margin >= scrollTop + inset && span.bottom + margin <= scrollTop + height) return scrollTop;
  if (span.bottom + margin <= anchor + height) return clamp(anchor);
  return clamp(span.top - margin - inset);
}

/**
 * Fault bands: each start paired with the next end of the same subject ("Redis node 3 stopped" with
 * "Redis node 3 started", a clock moved with its reset), every cut with the heal, and everything
 * with "every fault put back".
 */
export function faultBands(events: readonly TimelineEvent[], end: number): Layout["faults"] {
  const subject = (note = "") => note.replace(/ (stopped|started|paused|resumed|killed)$/, "").replace(/'s clock .*$/, "'s clock");
  const open: { from: number; note: string; instance?: string }[] = [];
  const bands: { from: number; to: number; note: string; instance?: string }[] = [];
  for (const event of events) {
    if (event.kind === "fault-start") open.push({ from: event.atUs, note: event.note ?? "fault", ...(event.instance ? { instance: event.instance } : {}) });
    if (event.kind !== "fault-end") continue;
    const all = event.note === "every fault put back";
    const heal = event.note === "every link healed";
    for (let index = open.length - 1; index >= 0; index -= 1) {
      if (all || (heal && open[index]!.note.startsWith("cut ")) || subject(open[index]!.note) === subject(event.note)) {
        bands.push({ ...open[index]!, to: event.atUs });
        open.splice(index, 1);
        if (!all && !heal) break;
      }
    }
  }
  for (const band of open) bands.push({ ...band, to: end });
  return bands.sort((a, b) => a.from - b.from);
}

/** One label under the fault bands: where it starts (px), its row counted up from the bottom, its text and its whole story. */
export interface FaultLabel {
  readonly x: number;
  readonly row: number;
  readonly text: string;
  readonly title: string;
}

/** Bands that start within this much of each other (µs) were one action: a grudge of several cuts, nodes stopped together. */
const SAME_ACTION_US = 50_000;
const LABEL_GAP_PX = 8;

/**
 * About how wide `text` is drawn at `size` units: CJK characters are square, Latin letters a
 * little over half as wide, bold ones wider (a touch generous, so estimated labels do not overprint).
 */
export function textUnits(text: string, size: number = DIAGRAM.fontSize, bold = false): number {
  const latin = bold ? 0.66 : 0.58;
  return [...text].reduce((width, char) => width + (/[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/.test(char) ? 1 : latin) * size, 0);
}

/** Between two labels on one lane's line. */
const LANE_LABEL_GAP = 6;

/**
 * The x of each label on a lane's line (read, wrote, given back, busy…), given in time order at
 * the x of its event: each starts just right of its event, pushed right of the one before so none
 * overprints another (a 5 ms critical section is a few units wide), and the last ones pulled back
 * left when they would run past `right`, never left of `left`.
 */
export function placeLaneLabels(labels: readonly { readonly x: number; readonly text: string; readonly bold?: boolean }[], right: number, left = 0): number[] {
  const width = (label: (typeof labels)[number]) => textUnits(label.text, DIAGRAM.fontSize, label.bold);
  const xs: number[] = [];
  for (const [index, label] of labels.entries()) {
    const previous = index > 0 ? xs[index - 1]! + width(labels[index - 1]!) + LANE_LABEL_GAP : -Infinity;
    xs.push(Math.max(label.x + 2, previous));
  }
  let limit = right;
  for (let index = labels.length - 1; index >= 0; index -= 1) {
    // A label whose event is right of the plot stays there (clipped): it is outside the window.
    if (labels[index]!.x <= right) xs[index] = Math.min(xs[index]!, Math.max(limit - width(labels[index]!), left));
    limit = xs[index]! - LANE_LABEL_GAP;
  }
  return xs;
}

/**
 * The fault bands' labels, placed so none overprints another: bands started by one action share one
 * label ("9 cuts: cut app-1 ⇹ redis-1, …", every note in its title), and each label takes the lowest
 * row where it clears the labels already there. At most `maxRows` rows; a label with no room left is
 * left out (its band's tooltip still names it).
 */
export function placeFaultLabels(bands: Layout["faults"], x: (us: number) => number, maxRows = 4): FaultLabel[] {
  const groups: { from: number; notes: string[] }[] = [];
  for (const band of [...bands].sort((a, b) => a.from - b.from)) {
    const last = groups.at(-1);
    if (last && band.from - last.from <= SAME_ACTION_US) last.notes.push(band.note);
    else groups.push({ from: band.from, notes: [band.note] });
  }
  const rowEnds: number[] = [];
  const labels: FaultLabel[] = [];
  for (const group of groups) {
    const notes = [...new Set(group.notes)];
    const cuts = notes.filter((note) => note.startsWith("cut "));
    const text = notes.length === 1 ? notes[0]! : cuts.length === notes.length ? `${cuts.length} cuts: ${cuts[0]}, …` : `${notes.length} faults: ${notes[0]}, …`;
    const left = x(group.from) + 3;
    let row = rowEnds.findIndex((end) => end + LABEL_GAP_PX <= left);
    if (row === -1 && rowEnds.length < maxRows) row = rowEnds.length;
    // No room left: the band goes unlabelled here, its own tooltip still names it.
    if (row === -1) continue;
    rowEnds[row] = left + textUnits(text);
    labels.push({ x: left, row, text, title: notes.join("\n") });
  }
  return labels;
}

/** A linear scale from [d0, d1] onto [r0, r1]. */
export function scale(d0: number, d1: number, r0: number, r1: number): (value: number) => number {
  const span = d1 - d0 || 1;
  return (value) => r0 + ((value - d0) / span) * (r1 - r0);
}

/**
 * Evenly spaced "nice" ticks (1, 2 or 5 × 10^n) covering [from, to], about `count` of them, at
 * least `minStep` apart: events are stamped in µs (0.001 ms), and finer ticks of a one-event
 * timeline were drawn on top of each other.
 */
export function niceTicks(from: number, to: number, count = 8, minStep = 0): number[] {
  const span = Math.max(to - from, 1e-9);
  const raw = Math.max(span / count, minStep);
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
