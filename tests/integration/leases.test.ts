/**
 * Every lease checks its time left before it writes. A row lock is a lease too: Postgres ends a
 * session idle in its transaction past the TTL and gives the row to the next waiter while the
 * first holder still works. Fenced and lease-checked (pg-for-update) no unit is sold twice; as it
 * is usually written (the lab's pg-unfenced) units are. A watchdog whose renewal is held back lets
 * its lease run out, and its holder does not write after that.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { clearFaults, setFault } from "@/lib/lab/faults";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { PUBLIC_URL, blast, getSaleStats, prepareSale } from "../support/stack";

const STOCK = 10;
const ROW_LEASE = { lockTtlMs: 200, waitTimeoutMs: 1000, workMs: 1500 } as const;

afterEach(() => clearFaults());
afterAll(() => resetConfig());

describe("a row lock whose lease runs out mid-work (TTL 200 ms, wait 1 s, work 1.5 s, 12 buyers)", () => {
  it("pg-for-update: no unit sold twice or lost, and every unit that left the shelf has its order", async () => {
    await prepareSale({ strategy: "pg-for-update", ...ROW_LEASE }, STOCK);
    const result = await blast(PUBLIC_URL, 12);
    const checked = await settledSale();
    expect(honest(checked)).toEqual(HONEST);
    expect(checked.orders).toBe(STOCK - checked.remaining);
    expect(checked.orders).toBe(result.bought);
    // Late holders were stopped, not answered "busy" for a write that landed.
    expect(result.lockLost, JSON.stringify(result.statuses)).toBeGreaterThan(0);
    expect(result.other, JSON.stringify(result.statuses)).toBe(0);
  });

  it("pg-unfenced (the lab's pitfall): later holders read the same stock and units are sold twice", async () => {
    await prepareSale({ strategy: "pg-unfenced", ...ROW_LEASE }, STOCK);
    await blast(PUBLIC_URL, 12);
    const checked = await settledSale();
    expect((await getSaleStats()).peakHolders).toBeGreaterThan(1);
    expect(checked.doubleSold + checked.lostUnits).toBeGreaterThan(0);
    expect((await getSaleStats()).verdict).toBe("FAIL");
  });
});

describe("token-watchdog with its renewals held back", () => {
  it("does not write after its lease ran out: nothing is sold, nothing sold twice", async () => {
    await prepareSale({ strategy: "token-watchdog", lockTtlMs: 300, waitTimeoutMs: 3000, workMs: 900 }, STOCK);
    await setFault("before-renew", 2000);
    const result = await blast(PUBLIC_URL, 6);
    const checked = await settledSale();
    expect(result.bought).toBe(0);
    expect(result.lockLost, JSON.stringify(result.statuses)).toBeGreaterThan(0);
    expect(checked.remaining).toBe(STOCK);
    expect(honest(checked)).toEqual(HONEST);
  });

  it("sells once its renewals get through again", async () => {
    await prepareSale({ strategy: "token-watchdog", lockTtlMs: 300, waitTimeoutMs: 10_000, workMs: 400 }, STOCK);
    const result = await blast(PUBLIC_URL, 6);
    const checked = await settledSale();
    expect(result.bought).toBe(6);
    expect(honest(checked)).toEqual(HONEST);
  });
});
