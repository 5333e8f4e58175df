import { describe, expect, it } from "vitest";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";
import { sampleEvents, sampleOfStored } from "@/lib/timeline/sample";

/** `holders` holders one after the other, four events each; holders `twice` read the same stock. */
function run(holders: number, twice: readonly number[] = []): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (let index = 0; index < holders; index += 1) {
    const holder = `h${index}`;
    const t = index * 10_000;
    const overlapping = twice.includes(index);
    const start = overlapping ? twice[0]! * 10_000 : t;
    const stock = overlapping ? 1_000 : 10_000 - index;
    events.push(
      { atUs: start, kind: "acquired", holder },
      { atUs: start + 1, kind: "read", holder, stock },
      { atUs: start + 5_000 + index, kind: "write", holder, stock: stock - 1, unit: stock },
      { atUs: start + 6_000 + index, kind: "released", holder },
    );
  }
  events.push({ atUs: 5, kind: "fault-start", holder: "", note: "Redis node 2 stopped" });
  return events.sort((a, b) => a.atUs - b.atUs);
}

describe("sampleEvents", () => {
  it("keeps a small timeline whole", () => {
    const events = run(10);
    expect(sampleEvents(events, detectAnomalies(events), 100)).toEqual({ events });
  });

  it("cuts a big one to the limit, keeping every anomalous holder, every fault and whole lanes", () => {
    const events = run(1_000, [500, 501]);
    const report = detectAnomalies(events);
    const kept = sampleEvents(events, report, 400);
    expect(kept.events.length).toBeLessThanOrEqual(400);
    expect(kept.events.length).toBeGreaterThan(300);
    const holders = new Set(kept.events.map((event) => event.holder));
    expect(holders.has("h500") && holders.has("h501")).toBe(true);
    expect(kept.events.filter((event) => event.kind === "fault-start")).toHaveLength(1);
    for (const holder of holders) if (holder) expect(kept.events.filter((event) => event.holder === holder)).toHaveLength(4);
    expect(detectAnomalies(kept.events).unitsSoldTwice).toBe(report.unitsSoldTwice);
    // Counts, not a sentence: the page says them in the reader's language (timeline.sampled).
    expect(kept.sampled).toEqual({ shown: holders.size - 1, holders: 1000, anomalous: 2, every: expect.any(Number) });
    expect(kept.sampled!.every).toBeGreaterThan(1);
  });

  it("reads back the counts it stored, and the sentence of a timeline kept before they were", () => {
    const sample = { shown: 98, holders: 1000, anomalous: 2, every: 11 };
    expect(sampleOfStored(JSON.stringify(sample))).toEqual(sample);
    const sentence = "sampled: 98 of 1000 holders shown — all 2 involved in an anomaly";
    expect(sampleOfStored(sentence)).toBe(sentence);
    expect(sampleOfStored(null)).toBeUndefined();
    expect(sampleOfStored("")).toBeUndefined();
  });
});
