import { describe, expect, it } from "vitest";
import { MATRIX_FAULTS, MATRIX_ROWS, matrixCell, pauseFormed, type CellResult } from "@/lib/lab/conformance";
import { cellKind, cellText, renderChart, renderMarkdown } from "@/lib/lab/conformance-report";
import { STRATEGY_NAMES } from "@/lib/locks/strategies";

describe("the conformance schedule", () => {
  it("plays every row under the pause, and each row's strategy in every played cell", () => {
    for (const row of MATRIX_ROWS) {
      expect(STRATEGY_NAMES).toContain(row.strategy);
      expect("play" in matrixCell(row, "pause"), row.strategy).toBe(true);
      for (const fault of MATRIX_FAULTS) {
        const cell = matrixCell(row, fault);
        if ("play" in cell) {
          expect(cell.play.strategy).toBe(row.strategy);
          // The matrix judges every pitfall itself: no card's pass conditions come along.
          expect(cell.play.require).toBeUndefined();
          expect(cell.play.watch).toBeUndefined();
        } else {
          expect(cell.skip).toMatch(/^(not played|see )/);
        }
      }
    }
  });

  it("gives every npm library in the benchmark a row", () => {
    const peers = STRATEGY_NAMES.filter((name) => name.startsWith("peer-"));
    expect(MATRIX_ROWS.map((row) => row.strategy)).toEqual(expect.arrayContaining(peers));
  });
});

describe("a pause cell counts only when its fault formed (fails closed)", () => {
  it("refuses a budget that is gone, a freeze that never happened, and a freeze no second holder entered", () => {
    // The key gone: Number(null) would read 0, "spent", and pass a pause nobody saw.
    expect(pauseFormed(null, 2)).toEqual({ formed: false, why: expect.stringContaining("budget is gone") });
    expect(pauseFormed("1", 2)).toEqual({ formed: false, why: "the pause never froze a buyer" });
    expect(pauseFormed("garbage", 2)).toMatchObject({ formed: false });
    // The buyer froze, but the lock outlasted the freeze: one holder throughout proves nothing.
    expect(pauseFormed("0", 1)).toEqual({ formed: false, why: expect.stringContaining("no second holder") });
    expect(pauseFormed("-3", 2)).toEqual({ formed: true });
  });

  it("never shows a repetition whose fault did not form as held", () => {
    expect(cellText({ reps: ["not-formed"] })).toBe("fault did not form in 1/1");
    expect(cellKind({ reps: ["not-formed", "not-formed"] })).toBe("unformed");
    expect(cellText({ reps: ["held", "not-formed", "held"] })).toBe("held 2/3, fault did not form in 1/3");
    expect(cellText({ reps: ["sold-twice", "not-formed"] })).toBe("sold twice in 1/2, fault did not form in 1/2");
  });
});

describe("the conformance report", () => {
  const held: CellResult = { strategy: "token-fencing", fault: "pause", reps: ["held", "held"], twoHolders: 1 };
  const failed: CellResult = { strategy: "token-lua", fault: "pause", reps: ["sold-twice", "held", "sold-twice"], twoHolders: 2, timeline: "conformance/token-lua--pause.svg" };

  it("says held n/N, or the failures counted, worst first", () => {
    expect(cellText(held)).toBe("held 2/2");
    expect(cellText(failed)).toBe("sold twice in 2/3");
    expect(cellText({ reps: ["lost", "stuck", "held"] })).toBe("lost stock in 1/3, stuck in 1/3");
    expect(cellText({ reps: [], skip: "not played: x" })).toBe("—");
    expect(cellKind(failed)).toBe("failed");
    expect(cellKind({ reps: ["held", "error"] })).toBe("error");
  });

  it("links a failure to its timeline, numbers the reasons a cell was not played, and draws the same cells", () => {
    const markdown = renderMarkdown([held, failed], { reps: 3, startedAt: "2026-11-26 02:00 UTC", durationS: 600 });
    expect(markdown).toContain("[**sold twice in 2/3**](conformance/token-lua--pause.svg)");
    expect(markdown).toContain("held 2/2 (two holders in 1/2, no unit sold twice)");
    expect(markdown).toMatch(/— <sup>1<\/sup>/);
    expect(markdown).toContain("1. not played: node 1 keeps the stock too");
    const chart = renderChart([held, failed], { reps: 3 });
    expect(chart).toContain(">sold twice in 2/3<");
    expect(chart).toContain(">held 2/2<");
    expect(chart.match(/<rect /g)?.length).toBeGreaterThan(MATRIX_ROWS.length * MATRIX_FAULTS.length);
  });
});
