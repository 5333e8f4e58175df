/**
 * Postgres down while buyers buy: the unit each buyer took from Redis is given back when its order
 * cannot be recorded, so every buyer gets a 503 `unavailable` and the stock stays whole; once
 * Postgres is back the sale goes on with orders and stock in agreement.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { PUBLIC_URL, blast, blastUntilBought, getSaleStats, prepareSale, stackControl } from "../support/stack";

const STOCK = 20;

afterEach(async () => {
  await stackControl("/reset-faults");
});
afterAll(() => resetConfig());

describe.each(["token-lua", "atomic"] as const)("%s with Postgres stopped", (strategy) => {
  it("answers 503 unavailable, loses no unit, and sells again once Postgres is back", async () => {
    await prepareSale({ strategy, workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, STOCK);
    await stackControl("/postgres/stop");

    const down = await blast(PUBLIC_URL, 20);
    expect(down.statuses).toEqual({ "503 unavailable": 20 });
    expect(await getStock()).toBe(STOCK);

    await stackControl("/postgres/start");
    // The pool drops its dead connections and opens new ones: the first buyers may still fail.
    const up = await blastUntilBought(PUBLIC_URL, 5);
    expect(up.bought).toBeGreaterThan(0);
    const stats = await getSaleStats();
    expect(stats.orders + stats.remaining).toBe(STOCK);
    expect(stats.lostStock).toBe(0);
    expect(stats.oversell).toBe(0);
  });
});
