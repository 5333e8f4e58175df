import { describe, expect, it } from "vitest";
import { countUnits, splitByStrategy, unitCountsOf, verdictOf, type StrategyUnitCount } from "@/lib/sale/accounting";

/** Orders per unit from a list of the units each order carries. */
const sold = (...units: number[]) => {
  const counts = new Map<number, number>();
  for (const unit of units) counts.set(unit, (counts.get(unit) ?? 0) + 1);
  return [...counts];
};

describe("countUnits", () => {
  it("an honest sale: every unit sold once or on the shelf", () => {
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5, 4, 3), remaining: 2, pendingUnits: [] });
    expect(counted).toMatchObject({ orders: 3, doubleSold: 0, lostUnits: 0, phantomUnits: 0, pendingUnits: 0, oversell: -2 });
    expect(verdictOf(counted)).toBe("PASS");
  });

  it("a double sale and a lost unit that a residual would cancel out", () => {
    // Units 5 and 4 sold... 5 twice, 4 never; stock 3. initial − orders − remaining = 5 − 2 − 3 = 0.
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5, 5), remaining: 3, pendingUnits: [] });
    expect(counted).toMatchObject({ orders: 2, doubleSold: 1, lostUnits: 1, oversell: -3 });
    expect(verdictOf(counted)).toBe("FAIL");
  });

  it("double sales in a sale that does not sell out", () => {
    // 200 buyers against 1000 units with no lock: many read the same stock.
    const counted = countUnits({ initialStock: 1000, unitCounts: sold(1000, 1000, 1000, 999, 999, 998), remaining: 997, pendingUnits: [] });
    expect(counted).toMatchObject({ orders: 6, distinctUnits: 3, doubleSold: 3, lostUnits: 0, oversell: -994 });
    expect(verdictOf(counted)).toBe("FAIL");
  });

  it("a reserved unit whose order is still being recorded is pending, not lost", () => {
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5), remaining: 3, pendingUnits: [4] });
    expect(counted).toMatchObject({ orders: 1, pendingUnits: 1, lostUnits: 0 });
    expect(verdictOf(counted)).toBe("PASS");
  });

  it("a stale write that puts sold units back on the shelf: phantom units, then double sales", () => {
    // Units 5..3 sold, then a paused holder wrote 4 (it had read 5): units 4 and 3 are back on the shelf.
    const stale = countUnits({ initialStock: 5, unitCounts: sold(5, 4, 3, 5), remaining: 4, pendingUnits: [] });
    expect(stale).toMatchObject({ doubleSold: 1, phantomUnits: 2, lostUnits: 0 });
    expect(verdictOf(stale)).toBe("FAIL");
  });

  it("a machine crash that cost node 1 its last second: the units sold in it read phantom, then sold twice, never hidden", () => {
    // Units 10..5 sold and recorded in Postgres (durable); node 1's append-only file had reached
    // only unit 7's stock write when the machine died: it comes back with a stock of 7.
    const crashed = countUnits({ initialStock: 10, unitCounts: sold(10, 9, 8, 7, 6, 5), remaining: 7, pendingUnits: [] });
    expect(crashed).toMatchObject({ orders: 6, phantomUnits: 3, lostUnits: 0, doubleSold: 0 });
    expect(verdictOf(crashed)).toBe("FAIL");
    // The sale goes on from 7: units 7, 6 and 5 are sold again, and count as sold twice.
    const after = countUnits({ initialStock: 10, unitCounts: sold(10, 9, 8, 7, 6, 5, 7, 6, 5), remaining: 4, pendingUnits: [] });
    expect(after).toMatchObject({ doubleSold: 3, phantomUnits: 0, lostUnits: 0 });
  });

  it("units outside 1..initial count as sold twice, and oversell is signed", () => {
    const counted = countUnits({ initialStock: 2, unitCounts: sold(2, 1, 0, -1), remaining: 0, pendingUnits: [] });
    expect(counted).toMatchObject({ orders: 4, outOfRange: 2, doubleSold: 2, oversell: 2, lostUnits: 0 });
  });

  it("a stock above the initial is phantom", () => {
    expect(countUnits({ initialStock: 3, unitCounts: [], remaining: 5, pendingUnits: [] })).toMatchObject({ phantomUnits: 2, lostUnits: 0 });
  });
});

describe("countUnits on a sale read while it moves (stock, then orders, then stock again)", () => {
  it("a unit taken and recorded between the first stock read and the orders is sold, not lost", () => {
    // Read 1: stock 5, nothing pending. Then unit 5 is taken and its order committed. Orders: unit 5. Read 3: stock 4.
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5), remaining: 4, stockBefore: 5, pendingUnits: [] });
    expect(counted).toMatchObject({ orders: 1, lostUnits: 0, phantomUnits: 0 });
    expect(verdictOf(counted)).toBe("PASS");
  });

  it("a unit taken after the orders were read is on the shelf at the first read, not lost", () => {
    // Read 1: stock 5. Orders: none. Then units 5 and 4 are taken (orders not yet read). Read 3: stock 3.
    const counted = countUnits({ initialStock: 5, unitCounts: [], remaining: 3, stockBefore: 5, pendingUnits: [] });
    expect(counted).toMatchObject({ lostUnits: 0, phantomUnits: 0 });
  });

  it("a unit bought between the first read and the orders is not phantom: phantom is judged on the last read", () => {
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5, 4), remaining: 3, stockBefore: 5, pendingUnits: [] });
    expect(counted).toMatchObject({ phantomUnits: 0, lostUnits: 0, doubleSold: 0 });
  });

  it("a unit really gone is still lost however the reads fall", () => {
    // Unit 3 left the shelf before read 1 with no reservation and no order.
    const counted = countUnits({ initialStock: 5, unitCounts: sold(5, 4), remaining: 2, stockBefore: 2, pendingUnits: [] });
    expect(counted).toMatchObject({ lostUnits: 1 });
    expect(verdictOf(counted)).toBe("FAIL");
  });
});

describe("splitByStrategy: a sale whose strategy was switched without a new sale", () => {
  // [strategy, unit, orders, first order id]
  const counts: StrategyUnitCount[] = [
    ["none", 20, 3, 1], ["none", 19, 1, 2], ["none", 18, 2, 4],
    ["token-lua", 18, 1, 9], ["token-lua", 17, 1, 10], ["token-lua", 16, 1, 11],
  ];

  it("counts each strategy's own double sales apart, in the order each sold first", () => {
    const split = splitByStrategy(20, counts);
    expect(split.strategies).toEqual([
      { strategy: "none", orders: 6, distinctUnits: 3, doubleSold: 3 },
      { strategy: "token-lua", orders: 3, distinctUnits: 3, doubleSold: 0 },
    ]);
    // Unit 18 sold under none, then again under token-lua: neither strategy's alone.
    expect(split.soldUnderSeveral).toBe(1);
  });

  it("adds up to the sale's own sold twice", () => {
    const split = splitByStrategy(20, counts);
    const sale = countUnits({ initialStock: 20, unitCounts: unitCountsOf(counts), remaining: 15, pendingUnits: [] });
    expect(split.strategies.reduce((sum, share) => sum + share.doubleSold, 0) + split.soldUnderSeveral).toBe(sale.doubleSold);
    expect(sale.doubleSold).toBe(4);
  });

  it("a sale under one strategy is one share, and orders outside 1..initial are that strategy's double sales", () => {
    const split = splitByStrategy(2, [["setnx", 2, 1, 5], ["setnx", 3, 1, 6], ["setnx", 1, 1, 7]]);
    expect(split).toEqual({ strategies: [{ strategy: "setnx", orders: 3, distinctUnits: 2, doubleSold: 1 }], soldUnderSeveral: 0 });
  });

  it("a sale with no orders has no share", () => {
    expect(splitByStrategy(5, [])).toEqual({ strategies: [], soldUnderSeveral: 0 });
  });
});
