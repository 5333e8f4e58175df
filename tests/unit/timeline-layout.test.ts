import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "@/lib/timeline/events";
import { faultBands, layOut, niceTicks, scale, zoomWindow } from "@/lib/timeline/layout";

describe("the timeline's layout", () => {
  const events: TimelineEvent[] = [
    { t: 100, kind: "acquire-sent", h: "a", i: "app-2" },
    { t: 110, kind: "acquire-sent", h: "b", i: "app-1" },
    { t: 120, kind: "fault-start", h: "", note: "Redis node 4 stopped" },
    { t: 130, kind: "acquired", h: "a" },
    { t: 140, kind: "acquire-sent", h: "c", i: "app-2" },
    { t: 150, kind: "fault-start", h: "", note: "app-1 paused" },
    { t: 160, kind: "fault-end", h: "", note: "Redis node 4 started" },
    { t: 200, kind: "released", h: "a" },
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
    const putBack = [...events, { t: 180, kind: "fault-end", h: "", note: "every fault put back" } as TimelineEvent];
    expect(faultBands(putBack, 200).map((band) => band.to)).toEqual([160, 180]);
  });

  it("scales linearly and picks round ticks", () => {
    expect(scale(0, 10, 100, 200)(5)).toBe(150);
    expect(niceTicks(0, 1000, 5)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(niceTicks(3, 17, 7)).toEqual([4, 6, 8, 10, 12, 14, 16]);
  });

  it("zooms around a point without leaving the recorded span", () => {
    const bounds = { start: 0, end: 1000 };
    expect(zoomWindow({ from: 0, to: 1000 }, 0.5, 500, bounds)).toEqual({ from: 250, to: 750 });
    expect(zoomWindow({ from: 0, to: 1000 }, 0.5, 990, bounds)).toEqual({ from: 500, to: 1000 });
    expect(zoomWindow({ from: 250, to: 750 }, 4, 500, bounds)).toEqual({ from: 0, to: 1000 });
  });
});
