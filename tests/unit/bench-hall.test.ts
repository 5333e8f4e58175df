/**
 * The conference hall's figures (bench/hall.ts): its aims, each with ✓ or ✗, and how a phone of the
 * load generator tells a snapshot shows the sale's end.
 */
import { describe, expect, it } from "vitest";
import { hallAims, hallTable, showsSoldOut, type HallResult } from "@/bench/hall";
import { snapshotEvent, type LiveSnapshot } from "@/lib/workshop/live";

function hall(phones: number, strategy: string, extra: Partial<HallResult> = {}): HallResult {
  return {
    phones, strategy, streamsHeld: phones, streamsDropped: 0, soldOutSeen: strategy === "none" ? 0 : phones,
    seenAfterZeroMs: { p50: 900, p99: 1100 }, seenAfterLastSaleMs: { p50: 200, p99: 400, max: 410 },
    buyMs: { p50: 900, p99: 1500 }, statuses: { "201 bought": 100, "409 sold_out": phones - 100 }, fiveXx: 0, processes: [],
    orders: strategy === "none" ? phones : 100, doubleSold: strategy === "none" ? 250 : 0, lostUnits: 0, ...extra,
  };
}

const failed = (results: HallResult[]) => hallAims(results).filter((line) => line.startsWith("✗"));

describe("the hall's aims", () => {
  it("a good run holds every aim", () => {
    const lines = hallAims([hall(100, "token-lua"), hall(1000, "token-lua"), hall(300, "none")]);
    expect(lines.filter((line) => line.startsWith("✗"))).toEqual([]);
    expect(lines.some((line) => line.includes("hall of 300 under none still oversells"))).toBe(true);
  });

  it("judges the biggest hall's buy p99 against 2 s and the end seen against 1 s after the last unit", () => {
    expect(failed([hall(1000, "token-lua", { buyMs: { p50: 1500, p99: 2100 } })])).toEqual([
      expect.stringContaining("buy answers p99 2100 ms (aim < 2000)"),
    ]);
    expect(failed([hall(1000, "token-lua", { seenAfterLastSaleMs: { p50: 500, p99: 1200, max: 1300 } })])).toEqual([
      expect.stringContaining("saw the sale's end within 1000 ms p99"),
    ]);
  });

  it("counts a phone the per-address limits turned away, in any hall", () => {
    const limited = hall(300, "token-lua", { statuses: { "201 bought": 100, "409 sold_out": 197, "429 too_many_requests": 3 } });
    expect(failed([limited, hall(1000, "token-lua")])).toEqual([expect.stringContaining("hall of 300 (token-lua): no phone turned away by the per-address limits (3 × 429)")]);
  });

  it("fails a safe hall that sold a unit twice or lost one, and a none hall that did not oversell", () => {
    expect(failed([hall(1000, "token-lua", { doubleSold: 1 })])).toEqual([expect.stringContaining("1 sold twice")]);
    expect(failed([hall(1000, "token-lua"), hall(300, "none", { doubleSold: 0 })])).toEqual([expect.stringContaining("under none still oversells")]);
  });

  it("prints how each hall's phones were answered", () => {
    expect(hallTable([hall(1000, "token-lua")])).toContain("1000 phones (token-lua) were answered: 900 × 409 sold_out · 100 × 201 bought");
  });
});

describe("a phone reading its stream", () => {
  const snapshot: LiveSnapshot = {
    saleId: 7, stock: 0, initialStock: 100, strategy: "token-lua", workMs: 0, holdersNow: 0, onePerBuyer: false,
    drop: { state: "open", opensAt: 1 } as LiveSnapshot["drop"], serverNow: 2, joined: 3,
    winners: { people: [{ name: 'Mallory "drop":{"state":"closed"}', unit: 1, twice: false }], others: 0 },
  };
  const data = (s: LiveSnapshot) => snapshotEvent(s).slice("data: ".length, -2);

  it("sees the end only in its sale's snapshot with the drop open and no stock", () => {
    expect(showsSoldOut(data(snapshot), 7)).toBe(true);
    expect(showsSoldOut(data({ ...snapshot, stock: 3 }), 7)).toBe(false);
    expect(showsSoldOut(data(snapshot), 8)).toBe(false);
    expect(showsSoldOut(data({ ...snapshot, drop: { ...snapshot.drop, state: "closed" } as LiveSnapshot["drop"] }), 7)).toBe(false);
  });

  it("reads a snapshot laid out otherwise by parsing it whole", () => {
    expect(showsSoldOut(JSON.stringify({ stock: 0, saleId: 7, drop: { state: "open" } }), 7)).toBe(true);
    expect(showsSoldOut(JSON.stringify({ stock: 1, saleId: 7, drop: { state: "open" } }), 7)).toBe(false);
  });
});
