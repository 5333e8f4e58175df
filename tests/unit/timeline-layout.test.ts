import { createTranslator } from "next-intl";
import { describe, expect, it } from "vitest";
import { voteTitle as localVoteTitle } from "@/app/admin/(signed-in)/sales/[id]/timeline/vote-title";
import { messagesFor } from "@/lib/i18n/messages";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";
import {
  DIAGRAM,
  anomalyRows,
  anomalyWindow,
  defaultWindow,
  diagramHeight,
  faultBands,
  placeFaultLabels,
  placeLaneLabels,
  laneTop,
  layOut,
  niceTicks,
  nodeRowTop,
  placeNodeRows,
  scale,
  scrollTopFor,
  textUnits,
  zoomWindow,
  type PlacedVote,
} from "@/lib/timeline/layout";

/** A vote mark's tooltip as the English page says it (the words are messages: `votes`). */
const votes = createTranslator({ locale: "en", messages: messagesFor("en"), namespace: "votes" });
const voteTitle = (node: string, placed: Pick<PlacedVote, "mark" | "more">) => localVoteTitle(node, placed, votes);

describe("the timeline's layout", () => {
  const events: TimelineEvent[] = [
    { atUs: 100, kind: "acquire-sent", holder: "a", instance: "app-2" },
    { atUs: 110, kind: "acquire-sent", holder: "b", instance: "app-1" },
    { atUs: 120, kind: "fault-start", holder: "", note: "Redis node 4 stopped" },
    { atUs: 130, kind: "acquired", holder: "a" },
    { atUs: 140, kind: "acquire-sent", holder: "c", instance: "app-2" },
    { atUs: 150, kind: "fault-start", holder: "", note: "app-1 paused" },
    { atUs: 160, kind: "fault-end", holder: "", note: "Redis node 4 started" },
    { atUs: 200, kind: "released", holder: "a" },
  ];

  it("groups lanes by instance in order of first appearance, holders in order of their first event", () => {
    const layout = layOut(events);
    expect(layout.rows.map((row) => (row.kind === "instance" ? `[${row.instance}]` : row.holder.id))).toEqual(["[app-2]", "a", "c", "[app-1]", "b"]);
    expect(layout.rowOf.get("b")).toBe(4);
    expect([layout.start, layout.end]).toEqual([100, 200]);
  });

  it("pairs a fault's start with its own end; one never ended runs to the end", () => {
    expect(faultBands(events, 200)).toEqual([
      { from: 120, to: 160, note: "Redis node 4 stopped" },
      { from: 150, to: 200, note: "app-1 paused" },
    ]);
    const putBack = [...events, { atUs: 180, kind: "fault-end", holder: "", note: "every fault put back" } as TimelineEvent];
    expect(faultBands(putBack, 200).map((band) => band.to)).toEqual([160, 180]);
  });

  it("labels a grudge of cuts started together once, and stacks labels that would overprint on rows of their own", () => {
    const cut = (client: string, server: string, from: number) => ({ from, to: 9_000_000, note: `cut ${client} ⇹ ${server}`, instance: client });
    const bands = [
      ...["primary", "sentinel-1", "sentinel-2", "sentinel-3"].map((server) => cut("app-1", server, 1_000_000)),
      { from: 1_010_000, to: 2_000_000, note: "Redis node 3's clock +10 s" },
      { from: 1_500_000, to: 2_000_000, note: "app-2 paused" },
      { from: 8_000_000, to: 9_000_000, note: "Redis node 4 stopped" },
    ];
    const x = (us: number) => us / 10_000; // 1 px per 10 ms
    const labels = placeFaultLabels(bands, x);
    // The four cuts and the clock moved 10 ms later are one action: one label, every note in its title.
    expect(labels[0]).toMatchObject({ row: 0, text: "5 faults: cut app-1 ⇹ primary, …" });
    expect(labels[0]!.title.split("\n")).toHaveLength(5);
    // app-2 paused starts 50 px later, under the first label: a row up. Node 4, far right, back on row 0.
    expect(labels.slice(1).map((label) => [label.text, label.row])).toEqual([["app-2 paused", 1], ["Redis node 4 stopped", 0]]);
    // No two labels on one row overlap.
    for (const a of labels) for (const b of labels) if (a !== b && a.row === b.row && a.x < b.x) expect(a.x + textUnits(a.text)).toBeLessThanOrEqual(b.x);
  });

  it("leaves a label out past the last row rather than print it over another", () => {
    const bands = [0, 1, 2, 3, 4].map((n) => ({ from: n * 100_000, to: 1_000_000, note: `Redis node ${n + 1} stopped` }));
    const labels = placeFaultLabels(bands, (us) => us / 10_000, 4);
    expect(labels.map((label) => label.row)).toEqual([0, 1, 2, 3]);
  });

  it("keeps a lane's labels apart, and pulls the last ones back inside the plot's right edge", () => {
    const right = DIAGRAM.width - DIAGRAM.right;
    const [read, wrote] = placeLaneLabels([{ x: right - 30, text: "read 5" }, { x: right - 25, text: "wrote 4", bold: true }], right, DIAGRAM.left);
    expect(read! + textUnits("read 5")).toBeLessThan(wrote!);
    expect(wrote! + textUnits("wrote 4", DIAGRAM.fontSize, true)).toBeLessThanOrEqual(right);
    // A label whose event is left of the window stays by its event (clipped), not moved onto the plot.
    expect(placeLaneLabels([{ x: 100, text: "read 5" }], right, DIAGRAM.left)).toEqual([102]);
  });

  it("scales linearly and picks round ticks", () => {
    expect(scale(0, 10, 100, 200)(5)).toBe(150);
    expect(niceTicks(0, 1000, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(niceTicks(3, 17, 7)).toEqual([4, 6, 8, 10, 12, 14, 16]);
  });

  it("ticks no finer than a microsecond: a one-event timeline's axis has two labels, not five on top of each other", () => {
    expect(niceTicks(0, 0.001, 8, 0.001)).toEqual([0, 0.001]);
  });

  it("zooms around a point without leaving the recorded span", () => {
    const bounds = { start: 0, end: 1000 };
    expect(zoomWindow({ from: 0, to: 1000 }, 0.5, 500, bounds)).toEqual({ from: 250, to: 750 });
    expect(zoomWindow({ from: 0, to: 1000 }, 0.5, 990, bounds)).toEqual({ from: 500, to: 1000 });
    expect(zoomWindow({ from: 250, to: 750 }, 4, 500, bounds)).toEqual({ from: 0, to: 1000 });
  });
});

describe("the timeline's Redlock node rows", () => {
  // Three acquires over five nodes: alice wins with nodes 4 and 5 down, bob finds the lock held,
  // carol gets a quorum but her validity ran out while she asked.
  const events: TimelineEvent[] = [
    { atUs: 0, kind: "acquire-sent", holder: "a", instance: "app-1", buyer: "alice" },
    { atUs: 1_000, kind: "votes", holder: "a", votes: ["granted", "granted", "granted", "down", "down"], validityMs: 4_900 },
    { atUs: 1_500, kind: "acquired", holder: "a" },
    { atUs: 2_000, kind: "acquire-sent", holder: "b", instance: "app-2", buyer: "bob" },
    { atUs: 3_000, kind: "votes", holder: "b", votes: ["held", "held", "held", "timeout", "down"], validityMs: 4_950 },
    { atUs: 4_000, kind: "acquire-sent", holder: "c", instance: "app-1", buyer: "carol" },
    { atUs: 9_000, kind: "votes", holder: "c", votes: ["granted", "granted", "granted", "held", "down"], validityMs: -5 },
    { atUs: 10_000, kind: "busy", holder: "c" },
  ];
  const layout = layOut(events);
  const window = { from: 0, to: 10_000 };
  const x = scale(window.from, window.to, DIAGRAM.left, DIAGRAM.width - DIAGRAM.right);

  it("draws one row per node, a mark per acquire in time order, each node's own vote", () => {
    expect(layout.nodes.map((row) => row.label)).toEqual(["node 1", "node 2", "node 3", "node 4", "node 5"]);
    expect(layout.nodes.map((row) => row.marks.map((mark) => mark.vote))).toEqual([
      ["granted", "held", "granted"],
      ["granted", "held", "granted"],
      ["granted", "held", "granted"],
      ["down", "timeout", "held"],
      ["down", "down", "down"],
    ]);
    const node4 = layout.nodes[3]!.marks;
    expect(node4.map((mark) => [mark.t, mark.buyer, mark.granted, mark.asked, mark.validityMs, mark.won])).toEqual([
      [1_000, "alice", 3, 5, 4_900, true],
      [3_000, "bob", 0, 5, 4_950, false],
      [9_000, "carol", 3, 5, -5, false],
    ]);
  });

  it("places the rows below the lanes, the marks at their acquire's time, validity only after a won acquire's grants", () => {
    const rows = placeNodeRows(layout, x, window);
    expect(rows.map((row) => row.y)).toEqual([0, 1, 2, 3, 4].map((index) => nodeRowTop(layout, index)));
    expect(rows[0]!.y).toBe(laneTop(layout.rows.length) + DIAGRAM.nodeHeadHeight);
    for (const row of rows) expect(row.votes.map((placed) => placed.x)).toEqual([x(1_000), x(3_000), x(9_000)]);
    // alice's grant is valid for 4.9 s: the bar runs far past the window (the SVG clips it).
    expect(rows[0]!.votes.map((placed) => placed.validUntilX)).toEqual([x(1_000 + 4_900_000), undefined, undefined]);
    expect(rows[3]!.votes.every((placed) => placed.validUntilX === undefined)).toBe(true);
  });

  it("leaves out marks outside the window unless their validity reaches into it", () => {
    const later = { from: 5_000, to: 10_000 };
    const rows = placeNodeRows(layout, scale(later.from, later.to, DIAGRAM.left, DIAGRAM.width - DIAGRAM.right), later);
    expect(rows[0]!.votes.map((placed) => placed.mark.buyer)).toEqual(["alice", "carol"]);
    expect(rows[3]!.votes.map((placed) => placed.mark.buyer)).toEqual(["carol"]);
  });

  it("draws acquires closer than a unit with the same vote as one mark, and counts the others", () => {
    const crowded: TimelineEvent[] = [0, 1, 2].map((index) => ({ atUs: 1_000 + index, kind: "votes", holder: `h${index}`, votes: ["held"], validityMs: 10 }));
    const crowdedLayout = layOut([...crowded, { atUs: 10_000_000, kind: "released", holder: "h0" }]);
    const rows = placeNodeRows(crowdedLayout, scale(0, 10_000_000, DIAGRAM.left, DIAGRAM.width - DIAGRAM.right), { from: 0, to: 10_000_000 });
    expect(rows[0]!.votes).toHaveLength(1);
    expect(rows[0]!.votes[0]!.more).toBe(2);
    expect(voteTitle("node 1", rows[0]!.votes[0]!)).toContain("and 2 more held by another votes");
  });

  it("names the buyer, the vote and the validity left in each mark's tooltip", () => {
    const [node1, , , node4] = placeNodeRows(layout, x, window);
    expect(voteTitle("node 1", node1!.votes[0]!)).toBe("node 1: granted — alice (holder a)\n3 of 5 nodes granted: lock acquired, 4900 ms of validity left");
    expect(voteTitle("node 4", node4!.votes[1]!)).toBe("node 4: timed out — bob (holder b)\n0 of 5 nodes granted: no quorum, released at once (4950 ms of validity left)");
    expect(voteTitle("node 4", node4!.votes[2]!)).toContain("a quorum, but the validity ran out while asking (-5 ms)");
  });

  it("makes the diagram tall enough for the node rows, and adds none without votes", () => {
    expect(diagramHeight(layout)).toBe(nodeRowTop(layout, 4) + DIAGRAM.nodeRowHeight + DIAGRAM.bottom);
    const noVotes = layOut(events.filter((event) => event.kind !== "votes"));
    expect(noVotes.nodes).toEqual([]);
    expect(placeNodeRows(noVotes, x, window)).toEqual([]);
    expect(diagramHeight(noVotes)).toBe(laneTop(noVotes.rows.length) + DIAGRAM.bottom);
  });
});

describe("focusing an anomaly", () => {
  // a holds the lock from 100 ms and reads at 110 ms; its lease runs out, b reads at 150 ms
  // while a is still inside; a writes at 200 ms, b at 260 ms. Other holders pad the run out to 10 s.
  const ms = 1000;
  const events: TimelineEvent[] = [
    { atUs: 0, kind: "acquire-sent", holder: "z", instance: "app-1", buyer: "zoe" },
    { atUs: 100 * ms, kind: "acquire-sent", holder: "a", instance: "app-1", buyer: "alice" },
    { atUs: 101 * ms, kind: "acquire-sent", holder: "m", instance: "app-2", buyer: "mallory" },
    { atUs: 102 * ms, kind: "acquire-sent", holder: "b", instance: "app-2", buyer: "bob" },
    { atUs: 105 * ms, kind: "acquired", holder: "a", leaseEndsAtUs: 140 * ms },
    { atUs: 110 * ms, kind: "read", holder: "a", stock: 5 },
    { atUs: 145 * ms, kind: "acquired", holder: "b" },
    { atUs: 150 * ms, kind: "read", holder: "b", stock: 5 },
    { atUs: 200 * ms, kind: "write", holder: "a", stock: 4, unit: 5 },
    { atUs: 260 * ms, kind: "write", holder: "b", stock: 4, unit: 5 },
    { atUs: 10_000 * ms, kind: "busy", holder: "m" },
  ];
  const layout = layOut(events);
  const overlap = detectAnomalies(events).anomalies.find((anomaly) => anomaly.kind === "overlap")!;

  it("zooms to both critical sections, the overlap inside, with room either side", () => {
    const { from, to } = anomalyWindow(overlap, layout);
    expect(from).toBeLessThan(110 * ms);
    expect(to).toBeGreaterThan(260 * ms);
    expect(to - from).toBeLessThan(300 * ms);
    expect(from).toBeLessThanOrEqual(overlap.t);
    expect(to).toBeGreaterThanOrEqual(overlap.kind === "overlap" ? overlap.until : overlap.t);
  });

  it("stays inside the recorded span", () => {
    const early = { ...overlap, t: 0, until: 1, holders: ["z", "z"] as const };
    const window = anomalyWindow(early, layout);
    expect(window.from).toBe(layout.start);
    expect(window.to).toBeGreaterThan(1);
  });

  it("finds both lanes, even in different instances' groups", () => {
    // Rows: [app-1] z a [app-2] m b.
    expect(anomalyRows(overlap, layout)).toEqual({ top: laneTop(2), bottom: laneTop(6) });
  });

  it("scrolls the first lane to the top when both do not show from the top; not at all when they do", () => {
    const box = { height: 300, contentHeight: 2000 };
    expect(scrollTopFor({ top: 100, bottom: 200 }, box)).toBe(0);
    expect(scrollTopFor({ top: 800, bottom: 900 }, box)).toBe(792);
    // Too far apart to show both: the first lane at the top, the second found by its highlight.
    expect(scrollTopFor({ top: 800, bottom: 1500 }, box)).toBe(792);
    expect(scrollTopFor({ top: 1900, bottom: 1950 }, box)).toBe(1700);
  });

  it("scrolls the page, not a box: leaves it be when the lanes show, else puts them under the sticky key", () => {
    // A 720 px window on a 5000 px page; the diagram's key (60 px, sticky) starts at 400 px.
    const page = { height: 720, contentHeight: 5000, inset: 60, anchor: 400 };
    // Already on screen below the key: the reader's place is kept.
    expect(scrollTopFor({ top: 1200, bottom: 1300 }, { ...page, scrollTop: 1000 })).toBe(1000);
    // Hidden under the stuck key: brought down just below it.
    expect(scrollTopFor({ top: 2020, bottom: 2100 }, { ...page, scrollTop: 2000 })).toBe(2020 - 8 - 60);
    // Lanes near the diagram's top, the reader further down: back to the key and time axis, lanes below them.
    expect(scrollTopFor({ top: 500, bottom: 600 }, { ...page, scrollTop: 3000 })).toBe(400);
    // Far down: the first lane just under the stuck key, not hidden by it.
    expect(scrollTopFor({ top: 3000, bottom: 3100 }, { ...page, scrollTop: 0 })).toBe(3000 - 8 - 60);
  });
});

describe("the window a timeline opens on", () => {
  const s = 1_000_000;
  /** One buy: waits, holds the lock 1 ms later, reads, writes 5 ms on, lets go. */
  const buy = (holder: string, at: number, buyer = holder): TimelineEvent[] => [
    { atUs: at, kind: "acquire-sent", holder, instance: "app-1", buyer },
    { atUs: at + 1_000, kind: "acquired", holder },
    { atUs: at + 2_000, kind: "read", holder, stock: 5 },
    { atUs: at + 7_000, kind: "write", holder, stock: 4, unit: 5 },
    { atUs: at + 8_000, kind: "released", holder },
  ];
  /** `count` buys spread over [from, from + within] seconds: a class's burst. */
  const burst = (prefix: string, count: number, from: number, within = 2) =>
    Array.from({ length: count }, (_, index) => buy(`${prefix}${index}`, Math.round((from + (within * index) / (count - 1 || 1)) * s))).flat();
  const timeline = (...groups: TimelineEvent[][]) => layOut(groups.flat().sort((a, b) => a.atUs - b.atUs));

  it("is the whole span when every holder is in the class's burst", () => {
    const layout = timeline(burst("b", 12, 0));
    expect(defaultWindow(layout)).toEqual({ from: layout.start, to: layout.end });
  });

  it("keeps the burst and names the one buyer who came 40 s later, so the burst is not squeezed into a sliver", () => {
    const layout = timeline(burst("b", 12, 0), buy("late", 40.2 * s, "latecomer"));
    const window = defaultWindow(layout);
    expect(window.from).toBe(layout.start);
    // Every buy of the burst shows whole, with a little room, and the burst fills most of the width.
    expect(window.to).toBeGreaterThanOrEqual(2 * s + 8_000);
    expect(window.to).toBeLessThan(2.2 * s);
    expect(window.later).toEqual({ holders: ["late"], buyers: 1, from: 40.2 * s, to: 40.2 * s + 8_000 });
    expect(window.earlier).toBeUndefined();
  });

  it("keeps the burst when one buyer came long before it", () => {
    const layout = timeline(buy("early", 0, "eager"), burst("b", 12, 30));
    const window = defaultWindow(layout);
    expect(window.earlier).toMatchObject({ holders: ["early"], buyers: 1, from: 0 });
    expect(window.from).toBeGreaterThan(29.8 * s);
    expect(window.from).toBeLessThanOrEqual(30 * s);
    expect(window.to).toBe(layout.end);
    expect(window.later).toBeUndefined();
  });

  it("counts a latecomer who tried three times as one buyer, and a trickle of them from the first to the last", () => {
    const layout = timeline(burst("b", 20, 0), buy("l1", 10 * s, "ana"), buy("l2", 10.3 * s, "ana"), buy("l3", 10.6 * s, "ana"), buy("l4", 25 * s, "bo"));
    expect(defaultWindow(layout).later).toEqual({ holders: ["l1", "l2", "l3", "l4"], buyers: 2, from: 10 * s, to: 25 * s + 8_000 });
  });

  it("shows everything when two groups are of like size: neither is an outlier", () => {
    const layout = timeline(burst("a", 6, 0), burst("b", 5, 40));
    expect(defaultWindow(layout)).toEqual({ from: layout.start, to: layout.end });
  });

  it("shows everything when the gap is short beside the burst: leaving it out would not widen the burst much", () => {
    const layout = timeline(burst("b", 12, 0), buy("late", 3.5 * s));
    expect(defaultWindow(layout)).toEqual({ from: layout.start, to: layout.end });
  });

  it("is the event's own span for a single event", () => {
    const layout = layOut([{ atUs: 5 * s, kind: "acquire-sent", holder: "a", instance: "app-1" }]);
    expect(defaultWindow(layout)).toEqual({ from: 5 * s, to: 5 * s + 1 });
  });

  it("keeps every holder of a long run one at a time, evenly spaced: no gap sets any apart", () => {
    const layout = timeline(...Array.from({ length: 5_000 }, (_, index) => buy(`h${index}`, index * 10_000)));
    expect(defaultWindow(layout)).toEqual({ from: layout.start, to: layout.end });
  });
});
