/**
 * Postgres down while buyers buy: every buyer gets a 503 `unavailable`. The units taken by buyers
 * already in flight stay reserved in Redis (never lost), and once an insert has failed a breaker
 * turns later buyers away before they take one; once Postgres is back the
 * reconciler settles each — put back on the shelf as itself, or recorded as the buyer's order — and
 * the sale goes on with every unit accounted for.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { HONEST, currentSaleId, honest, pendingUnits, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { INTERNALS } from "../support/internals";
import { PUBLIC_URL, blast, blastUntilBought, postBuy, prepareSale, stackControl } from "../support/stack";

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
    // Postgres is down, so this reads Redis only: whatever left the shelf is reserved, not lost.
    const reserved = await pendingUnits(await currentSaleId());
    expect((await getStock()) + reserved.length).toBe(STOCK);

    // Once an insert has failed, the breaker turns buyers away before they take a unit.
    const later = await blast(PUBLIC_URL, 10);
    expect(later.statuses).toEqual({ "503 unavailable": 10 });
    expect(await pendingUnits(await currentSaleId())).toHaveLength(reserved.length);

    // The figures are counted from the durable record: without it, the public figures and the
    // admin's runs answer 503 unavailable (with Retry-After), never a 500 and never a guess.
    const figures = await fetch(`${PUBLIC_URL}/api/sale`);
    expect(figures.status).toBe(503);
    expect(figures.headers.get("retry-after")).toBe("1");
    const figuresText = await figures.text();
    expect((JSON.parse(figuresText) as { code: string }).code).toBe("unavailable");
    // Said by its code: not the refused address, nor the driver's words (those are in the app's log).
    expect(figuresText).not.toMatch(INTERNALS);
    const buyer = await postBuy(PUBLIC_URL, "while-postgres-is-down");
    const buyerText = await buyer.text();
    expect(buyer.status, buyerText).toBe(503);
    expect(buyerText).not.toMatch(INTERNALS);
    const ready = await fetch(`${PUBLIC_URL}/api/ready`);
    const readyText = await ready.text();
    expect(ready.status).toBe(503);
    expect(JSON.parse(readyText)).toMatchObject({ code: "not_ready", checks: { postgres: "unavailable" } });
    expect(readyText).not.toMatch(INTERNALS);
    const runs = await adminFetch(await signIn(), "GET", "/api/admin/runs");
    expect(runs.status, runs.text).toBe(503);

    await stackControl("/postgres/start");
    // The pool drops its dead connections and opens new ones: the first buyers may still fail.
    const up = await blastUntilBought(PUBLIC_URL, 5);
    expect(up.bought).toBeGreaterThan(0);
    const settled = await settledSale();
    expect(honest(settled)).toEqual(HONEST);
    expect(settled.orders + settled.remaining).toBe(STOCK);
    expect(settled.oversell).toBeLessThanOrEqual(0);
  });
});
