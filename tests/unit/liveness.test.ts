import { describe, expect, it } from "vitest";
import { livenessOf } from "@/lib/sale/liveness";

const NOW = 1_000_000;

describe("livenessOf", () => {
  it("a sale with no refusal, or whose stock moved since the streak began, is live", () => {
    expect(livenessOf({}, 10, NOW, 1000).liveness).toBe("live");
    expect(livenessOf({ stock: "11", firstAt: String(NOW - 60_000), lastAt: String(NOW), refused: "50" }, 10, NOW, 1000)).toEqual({ liveness: "live", refusedSinceMoved: 0 });
  });

  it("is stuck when buyers keep being turned away, stock is left and nothing moved for three wait timeouts", () => {
    const streak = { stock: "10", firstAt: String(NOW - 3500), lastAt: String(NOW - 100), refused: "12" };
    expect(livenessOf(streak, 10, NOW, 1000)).toEqual({ liveness: "stuck", stuckForMs: 3500, refusedSinceMoved: 12 });
  });

  it("is not stuck before three wait timeouts (nor before 2 s), with too few refusals, once buyers stop coming, or when sold out", () => {
    const base = { stock: "10", refused: "12" };
    expect(livenessOf({ ...base, firstAt: String(NOW - 2500), lastAt: String(NOW) }, 10, NOW, 1000).liveness).toBe("live");
    expect(livenessOf({ ...base, firstAt: String(NOW - 1900), lastAt: String(NOW) }, 10, NOW, 100).liveness).toBe("live");
    expect(livenessOf({ ...base, refused: "2", firstAt: String(NOW - 9000), lastAt: String(NOW) }, 10, NOW, 1000).liveness).toBe("live");
    expect(livenessOf({ ...base, firstAt: String(NOW - 20_000), lastAt: String(NOW - 7000) }, 10, NOW, 1000).liveness).toBe("live");
    expect(livenessOf({ ...base, stock: "0", firstAt: String(NOW - 9000), lastAt: String(NOW) }, 0, NOW, 1000).liveness).toBe("live");
  });
});
