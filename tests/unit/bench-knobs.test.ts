import { describe, expect, it } from "vitest";
import { DEFAULT_CURVE, KnobError, readKnobs, rowFilter } from "@/bench/knobs";

describe("the benchmark's knobs", () => {
  it("runs everything, curve included, when nothing is set", () => {
    const knobs = readKnobs({});
    expect(knobs.workload.buyers).toBe(50);
    expect(knobs.curve).toEqual(DEFAULT_CURVE);
    expect(knobs.chartPath).toBe("docs/bench-contention.svg");
  });

  it("skips the curve with BENCH_CURVE=0 and reads its buyers and window", () => {
    expect(readKnobs({ BENCH_CURVE: "0" }).curve).toBeUndefined();
    expect(readKnobs({ BENCH_CURVE_BUYERS: "200, 10,200", BENCH_CURVE_WINDOW_MS: "2000" }).curve).toEqual({ buyers: [10, 200], windowMs: 2000 });
    expect(() => readKnobs({ BENCH_CURVE_BUYERS: "10,lots" })).toThrow(KnobError);
    expect(() => readKnobs({ BENCH_CURVE: "yes" })).toThrow(/BENCH_CURVE must be 0/);
    expect(() => readKnobs({ BENCH_LEVEL: "tcp" })).toThrow(/BENCH_LEVEL/);
  });

  it("selects rows by label, by peer library, or by level:label", () => {
    const rows = [
      { label: "token-lua", level: "in-process" },
      { label: "token-lua", level: "http" },
      { label: "token-lua (timeline on)", level: "http" },
      { label: "node-redlock 4 (defaults)", level: "in-process", group: "node-redlock 4" },
      { label: "node-redlock 4 (tuned retry 50±50 ms ×100)", level: "in-process", group: "node-redlock 4" },
      { label: "node-redlock 5-beta (defaults)", level: "in-process", group: "node-redlock 5-beta" },
    ] as const;
    const pick = (only: string, level?: "in-process" | "http") => rows.filter(rowFilter(only.split(","), level)).map((r) => `${r.level}:${r.label}`);
    expect(pick("token-lua")).toEqual(["in-process:token-lua", "http:token-lua"]);
    expect(pick("http:token-lua")).toEqual(["http:token-lua"]);
    expect(pick("node-redlock 4")).toEqual(["in-process:node-redlock 4 (defaults)", "in-process:node-redlock 4 (tuned retry 50±50 ms ×100)"]);
    expect(pick("node-redlock 5-beta (defaults),token-lua", "http")).toEqual(["http:token-lua"]);
  });
});

describe("the curve's window", () => {
  it("grows with the buyers of a point (they all arrive at once), within bounds", async () => {
    const { curveWindowMs } = await import("../../bench/rows");
    expect(curveWindowMs(3000, 10)).toBe(3000);
    expect(curveWindowMs(3000, 200)).toBe(3000);
    expect(curveWindowMs(3000, 1000)).toBe(12_000);
    expect(curveWindowMs(3000, 5000)).toBe(15_000);
    expect(curveWindowMs(20_000, 1000)).toBe(20_000);
  });
});

describe("the curve's way back down", () => {
  const workload = { buyers: 50, windowMs: 4000, waitTimeoutMs: 5000, ttlMs: 2000, workMs: 0, starvationSlackMs: 500, initialStock: 1000 };
  const point = (r: { level: string; label: string; buyers: number }) => `${r.level} ${r.label} ${r.buyers}`;

  it("measures the safe locks' points from 50 buyers on again in the mirror order, peers left out", async () => {
    const { curveRows } = await import("../../bench/rows");
    const peer = { label: "node-redlock 5-beta (defaults)", peer: "node-redlock 5-beta", family: "redlock", lock: () => ({ withLock: async () => undefined }) } as never;
    const rows = curveRows({ buyers: [10, 50, 200, 1000], windowMs: 3000 }, [peer], workload, "http://127.0.0.1:3000", 50);
    const up = curveRows({ buyers: [10, 50, 200, 1000], windowMs: 3000 }, [peer], workload, "http://127.0.0.1:3000");
    expect(rows.slice(0, up.length).map(point)).toEqual(up.map(point));
    const back = rows.slice(up.length).map(point);
    const locks = ["token-lua", "redlock", "pg-for-update", "atomic"];
    expect(back).toEqual([
      ...[1000, 200, 50].flatMap((buyers) => locks.map((label) => `http ${label} ${buyers}`)),
      ...[1000, 200, 50].flatMap((buyers) => locks.map((label) => `in-process ${label} ${buyers}`)),
    ]);
    // A point back down keeps its window, which grows with its buyers.
    expect(rows.at(-12)!.buyers).toBe(1000);
  });

  it("does not go back down when fewer than two points are from 50 buyers on", async () => {
    const { curveRows } = await import("../../bench/rows");
    const rows = curveRows({ buyers: [10, 50], windowMs: 3000 }, [], workload, "http://127.0.0.1:3000", 50);
    // Per point: four locks over HTTP and in-process, and in-process the serial ceiling and `local`.
    expect(rows).toHaveLength(2 * (2 * 4 + 2));
  });

  it("makes each point one result: the mean of its windows, each window's figure kept", async () => {
    const { mergeWindows } = await import("../../bench/rows");
    const result = (label: string, buyers: number, purchasesPerSecond: number, bought: number) => ({
      level: "http" as const, label, buyers, purchasesPerSecond, windowMs: 3000, attempts: bought, bought, busy: 0, soldOut: 0, errors: 0,
      starved: buyers === 1000 ? 1 : 0, p50: 10, p99: purchasesPerSecond / 10, max: 100, redisCommandsPerPurchase: 10, peakHolders: 1, lostUpdates: 0,
    });
    const merged = mergeWindows([result("token-lua", 50, 800, 2400), result("token-lua", 1000, 600, 7200), result("atomic", 50, 1000, 3000), result("token-lua", 1000, 700, 8400), result("token-lua", 50, 900, 2700)]);
    expect(merged.map((r) => `${r.label} ${r.buyers}`)).toEqual(["token-lua 50", "token-lua 1000", "atomic 50"]);
    expect(merged[0]).toMatchObject({ purchasesPerSecond: 850, samples: [800, 900], bought: 5100, p99: 85 });
    expect(merged[1]).toMatchObject({ purchasesPerSecond: 650, samples: [600, 700], starved: 2 });
    expect(merged[2]).toMatchObject({ purchasesPerSecond: 1000 });
    expect(merged[2]!.samples).toBeUndefined();
  });
});

