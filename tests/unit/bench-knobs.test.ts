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
