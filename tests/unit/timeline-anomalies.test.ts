import { describe, expect, it } from "vitest";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";

const ms = (n: number) => 1_700_000_000_000_000 + n * 1000;

/** One holder's life: acquired, read, write (or leave), released; times in ms from an origin. */
function holder(id: string, at: { acquired: number; read: number; write?: number; leave?: number; released: number; expires?: number }, stock: number, extra: Partial<TimelineEvent> = {}): TimelineEvent[] {
  const events: TimelineEvent[] = [
    { atUs: ms(at.acquired - 1), kind: "acquire-sent", holder: id, instance: "app-1", buyer: `buyer-${id}` },
    { atUs: ms(at.acquired), kind: "acquired", holder: id, ...(at.expires !== undefined && { leaseEndsAtUs: ms(at.expires) }), ...extra },
    { atUs: ms(at.read), kind: "read", holder: id, stock },
  ];
  if (at.write !== undefined) events.push({ atUs: ms(at.write), kind: "write", holder: id, stock: stock - 1, unit: stock, ...extra });
  if (at.leave !== undefined) events.push({ atUs: ms(at.leave), kind: "leave", holder: id });
  events.push({ atUs: ms(at.released), kind: "released", holder: id });
  return events;
}

const byTime = (events: TimelineEvent[]) => [...events].sort((a, b) => a.atUs - b.atUs);

describe("detectAnomalies", () => {
  it("finds nothing in a clean run: one holder after another, each unit once", () => {
    const events = byTime([
      ...holder("a", { acquired: 0, read: 1, write: 5, released: 6, expires: 100 }, 3),
      ...holder("b", { acquired: 6, read: 7, write: 11, released: 12, expires: 106 }, 2),
      ...holder("c", { acquired: 12, read: 13, leave: 14, released: 15, expires: 112 }, 0),
    ]);
    const report = detectAnomalies(events);
    expect(report.anomalies).toEqual([]);
    expect(report.unitsSoldTwice).toBe(0);
  });

  it("finds two holders in the critical section at once, and the unit they both sold", () => {
    const events = byTime([
      ...holder("a", { acquired: 0, read: 1, write: 50, released: 51, expires: 20 }, 41),
      ...holder("b", { acquired: 21, read: 22, write: 30, released: 31, expires: 41 }, 41),
    ]);
    const report = detectAnomalies(events);
    expect(report.overlaps).toBe(1);
    expect(report.unitsSoldTwice).toBe(1);
    const overlap = report.anomalies.find((anomaly) => anomaly.kind === "overlap");
    expect(overlap?.holders).toEqual(["a", "b"]);
    expect(overlap?.note).toBe("buyer-a and buyer-b both read 41 — unit 41 sold twice");
    expect(overlap?.t).toBe(ms(22));
    expect(overlap && "until" in overlap && overlap.until).toBe(ms(30));
    const twice = report.anomalies.find((anomaly) => anomaly.kind === "unit-twice");
    expect(twice && "unit" in twice && twice.unit).toBe(41);
  });

  it("counts a unit written by three holders as two extra sales", () => {
    const events = byTime([
      ...holder("a", { acquired: 0, read: 1, write: 40, released: 41 }, 9),
      ...holder("b", { acquired: 2, read: 3, write: 42, released: 43 }, 9),
      ...holder("c", { acquired: 4, read: 5, write: 44, released: 45 }, 9),
    ]);
    const report = detectAnomalies(events);
    expect(report.unitsSoldTwice).toBe(2);
    expect(report.overlaps).toBe(3);
  });

  it("marks a write that landed after the holder's lease ran out", () => {
    const events = byTime(holder("a", { acquired: 0, read: 1, write: 250, released: 251, expires: 200 }, 5));
    const report = detectAnomalies(events);
    expect(report.writesAfterExpiry).toBe(1);
    const late = report.anomalies[0];
    expect(late?.kind).toBe("write-after-expiry");
    expect(late && "lateMs" in late && late.lateMs).toBe(50);
  });

  it("a renewal moves the expiry: a write inside the renewed lease is not late", () => {
    const events = byTime([
      ...holder("a", { acquired: 0, read: 1, write: 250, released: 251, expires: 200 }, 5),
      { atUs: ms(100), kind: "renewed", holder: "a", leaseEndsAtUs: ms(300) },
    ]);
    expect(detectAnomalies(events).writesAfterExpiry).toBe(0);
  });

  it("lists a stale write the fenced store refused, and no overlap where only one holder wrote", () => {
    const events = byTime([
      ...holder("a", { acquired: 0, read: 1, released: 60, expires: 20 }, 8, { fencingToken: 1 }),
      { atUs: ms(59), kind: "write-refused", holder: "a", unit: 8, fencingToken: 1, note: "fencing token 1 < 2" },
      ...holder("b", { acquired: 21, read: 22, write: 25, released: 26, expires: 41 }, 8, { fencingToken: 2 }),
    ]);
    const report = detectAnomalies(events);
    expect(report.refusedWrites).toBe(1);
    expect(report.unitsSoldTwice).toBe(0);
    const refused = report.anomalies.find((anomaly) => anomaly.kind === "refused-write");
    expect(refused?.note).toBe("the store refused buyer-a's stale write (fencing token 1)");
    // They overlapped in time, but only b's write landed: an overlap, not a double sale.
    expect(report.overlaps).toBe(1);
    expect(report.anomalies.find((anomaly) => anomaly.kind === "overlap")?.note).toBe("buyer-a and buyer-b both read 8");
  });

  // The reconciler gave R1's unit back to the shelf (its order never landed: a 'returned' tombstone),
  // and R2 then bought that same unit for real. The durable accounting sells it once.
  const givenBack = (id: string, at: number, unit: number): TimelineEvent => ({ atUs: ms(at), kind: "given-back", holder: id, instance: "app-2", unit, stock: unit });

  it("a unit given back to the shelf and bought again is sold once, not written twice", () => {
    const events = byTime([
      ...holder("r1", { acquired: 0, read: 1, write: 5, released: 6, expires: 100 }, 1),
      givenBack("r1", 3005, 1),
      ...holder("r2", { acquired: 3010, read: 3011, write: 3015, released: 3016, expires: 3110 }, 1),
    ]);
    const report = detectAnomalies(events);
    expect(report.unitsSoldTwice).toBe(0);
    expect(report.anomalies).toEqual([]);
  });

  it("the same two writes without a give-back are still one unit written twice", () => {
    const events = byTime([
      ...holder("r1", { acquired: 0, read: 1, write: 5, released: 6, expires: 100 }, 1),
      ...holder("r2", { acquired: 3010, read: 3011, write: 3015, released: 3016, expires: 3110 }, 1),
    ]);
    const report = detectAnomalies(events);
    expect(report.unitsSoldTwice).toBe(1);
    expect(report.anomalies.find((anomaly) => anomaly.kind === "unit-twice")?.holders).toEqual(["r1", "r2"]);
  });

  it("a give-back frees only its own holder's write: two later writers of the unit are still a double sale", () => {
    const events = byTime([
      ...holder("r1", { acquired: 0, read: 1, write: 5, released: 6 }, 4),
      givenBack("r1", 3005, 4),
      ...holder("r2", { acquired: 3010, read: 3011, write: 3040, released: 3041 }, 4),
      ...holder("r3", { acquired: 3020, read: 3021, write: 3030, released: 3031 }, 4),
    ]);
    const report = detectAnomalies(events);
    expect(report.unitsSoldTwice).toBe(1);
    expect(report.anomalies.find((anomaly) => anomaly.kind === "unit-twice")?.holders).toEqual(["r3", "r2"]);
    expect(report.anomalies.find((anomaly) => anomaly.kind === "overlap")?.note).toBe("buyer-r2 and buyer-r3 both read 4 — unit 4 sold twice");
  });

  it("a give-back of another unit, or by another holder, changes nothing", () => {
    const events = byTime([
      ...holder("r1", { acquired: 0, read: 1, write: 5, released: 6 }, 2),
      givenBack("r1", 3005, 7),
      givenBack("zz", 3006, 2),
      ...holder("r2", { acquired: 3010, read: 3011, write: 3015, released: 3016 }, 2),
    ]);
    expect(detectAnomalies(events).unitsSoldTwice).toBe(1);
  });
});
