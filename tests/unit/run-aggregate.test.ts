import { describe, expect, it } from "vitest";
import { aggregateByStrategy } from "@/lib/runs/aggregate";
import type { RunRecord } from "@/lib/runs/record";

let nextId = 1;
/** A completed run of `initialStock` units that recorded `orders` orders. */
function run(strategy: string, initialStock: number, orders: number, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    id: nextId++, saleId: nextId, status: "completed", strategy, scenario: null,
    knobs: { lockTtlMs: 3000, waitTimeoutMs: 5000, workMs: 0 }, tool: "node", vus: 50, durationMs: 10_000,
    totalRequests: null, startedAt: new Date(0).toISOString(), finishedAt: new Date(10_000).toISOString(),
    requests: 1000, bought: orders, soldOut: 0, busy: 0, errors: 0, throughput: 100, p50Ms: 5, p95Ms: 20, p99Ms: 40,
    initialStock, orders, remaining: Math.max(0, initialStock - orders), oversell: orders - initialStock,
    doubleSold: 0, lostUnits: 0, phantomUnits: 0, outOfRange: 0, pendingUnits: 0, peakHolders: 1, verdict: "PASS",
    timeline: [], ...extra,
  };
}

describe("aggregateByStrategy: the oversell chart", () => {
  it("draws a sale that left units as 0 sold beyond the stock, not as its units left", () => {
    // The dashboard drew −98,722 for a load run of 1,278 orders against 100,000 units.
    const [tokenLua] = aggregateByStrategy([run("token-lua", 100_000, 1_278)]);
    expect(tokenLua).toMatchObject({ strategy: "token-lua", runs: 1, oversold: 0, maxOversold: 0 });
  });

  it("a sale that sold beyond its stock counts every unit too many, and a left-over sale beside it does not cancel them", () => {
    const runs = [run("none", 100, 130, { doubleSold: 30, verdict: "FAIL" }), run("none", 100_000, 900, { doubleSold: 12, verdict: "FAIL" })];
    const [none] = aggregateByStrategy(runs);
    // A signed mean would read (30 − 99,100) / 2 = −49,535: "none" would look like the safest lock.
    expect(none).toMatchObject({ runs: 2, oversold: 15, maxOversold: 30, doubleSold: 21, maxDoubleSold: 30, doubleSoldRuns: 2 });
  });

  it("runs still in progress or failed stay out, and strategies stay apart", () => {
    const aggregates = aggregateByStrategy([
      run("none", 100, 104),
      run("none", 100, 250, { status: "running" }),
      run("redlock", 100, 100),
      run("redlock", 100, 0, { status: "failed", oversell: null }),
    ]);
    expect(aggregates).toEqual([
      expect.objectContaining({ strategy: "none", runs: 1, oversold: 4, maxOversold: 4 }),
      expect.objectContaining({ strategy: "redlock", runs: 1, oversold: 0, maxOversold: 0 }),
    ]);
  });

  it("an old run with no unit count stays out of the sold-twice mean instead of counting as 0", () => {
    const [none] = aggregateByStrategy([run("none", 100, 110, { doubleSold: 10 }), run("none", 100, 100, { doubleSold: null })]);
    expect(none).toMatchObject({ runs: 2, doubleSold: 10, doubleSoldRuns: 1, oversold: 5 });
  });
});
