import { describe, expect, it } from "vitest";
import { K6_METRICS, summaryFromK6 } from "@/lib/runs/k6-summary";
import { loadSummarySchema, runCompleteSchema } from "@/lib/validations/run";
import { buyCreateSchema } from "@/lib/validations/buy";
import { lockConfigUpdateSchema } from "@/lib/validations/config";

describe("buyCreateSchema", () => {
  it("accepts a buyer and an optional sku", () => {
    expect(buyCreateSchema.parse({ buyer: "alice" })).toEqual({ buyer: "alice" });
    expect(buyCreateSchema.parse({ buyer: " bob ", sku: "goods:001" })).toEqual({ buyer: "bob", sku: "goods:001" });
  });

  it.each([{}, { buyer: 1 }, { buyer: "" }, { buyer: "a", extra: true }, { buyer: "a b" }])("refuses %j", (input) => {
    expect(buyCreateSchema.safeParse(input).success).toBe(false);
  });
});

describe("lockConfigUpdateSchema", () => {
  it("accepts any subset of the knobs", () => {
    expect(lockConfigUpdateSchema.parse({ strategy: "redlock" })).toEqual({ strategy: "redlock" });
    expect(lockConfigUpdateSchema.parse({ lockTtlMs: 100, workMs: 0 })).toEqual({ lockTtlMs: 100, workMs: 0 });
  });

  it.each([{ strategy: "chubby" }, { lockTtlMs: 0 }, { workMs: -1 }, { waitTimeoutMs: 1.5 }, { color: "red" }])(
    "refuses %j",
    (input) => {
      expect(lockConfigUpdateSchema.safeParse(input).success).toBe(false);
    },
  );
});

describe("a run's summary", () => {
  const summary = { tool: "node", requests: 10, bought: 5, soldOut: 5, busy: 0, errors: 0, durationMs: 1000, latencyMs: { p50: 1, p95: 2, p99: 3 } };

  it("holds every count to what the runs table keeps, and the run's length to a day", () => {
    expect(runCompleteSchema.safeParse(summary).success).toBe(true);
    for (const bad of [{ requests: 3_000_000_000 }, { bought: -1 }, { busy: 1.5 }, { durationMs: 0 }, { durationMs: 1e12 }]) {
      expect(runCompleteSchema.safeParse({ ...summary, ...bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("holds k6's figures, once read out of its summary, to the same bounds", () => {
    const k6 = (count: number) => summaryFromK6({ metrics: { [K6_METRICS.requests]: { values: { count } } }, state: { testRunDurationMs: 1000 } });
    expect(loadSummarySchema.safeParse(k6(10)).success).toBe(true);
    expect(loadSummarySchema.safeParse(k6(3_000_000_000)).success).toBe(false);
    expect(loadSummarySchema.safeParse(k6(-4)).success).toBe(false);
  });
});
