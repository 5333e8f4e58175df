/**
 * The lock contract, run once per strategy on the real stack: 200 concurrent buyers through nginx
 * (two app instances) against a stock of 50 with a few ms of simulated work in the critical section.
 * Safe strategies sell exactly the stock; unsafe ones show their pitfall.
 */
import { afterAll, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { STRATEGY_NAMES, type StrategyName } from "@/lib/locks/types";
import { PUBLIC_URL, blast, getSaleStats, instanceUrl, prepareSale } from "../support/stack";

const BUYERS = 200;
const STOCK = 50;
const WORK_MS = 5;

afterAll(() => resetConfig());

function expectHonestSale(stats: Awaited<ReturnType<typeof getSaleStats>>, bought: number) {
  expect(stats.orders).toBe(STOCK);
  expect(bought).toBe(STOCK);
  expect(stats.remaining).toBe(0);
  expect(stats.oversell).toBe(0);
  expect(stats.lostStock).toBe(0);
  expect(stats.peakHolders).toBe(1);
}

const SAFE: readonly StrategyName[] = ["token-lua", "redlock", "pg-for-update", "atomic"];
/** The pitfall lab's variants: with no fault injected and work well inside the TTL, all sell honestly. */
const LAB_VARIANTS: readonly StrategyName[] = [
  "setnx-no-expiry",
  "token-get-del",
  "token-watch",
  "token-watchdog",
  "token-fencing",
  "token-reentrant",
];

describe.each(SAFE)("%s (safe)", (strategy) => {
  it(`sells exactly ${STOCK} to ${BUYERS} concurrent buyers through nginx, one holder at a time`, async () => {
    await prepareSale({ strategy, workMs: WORK_MS, lockTtlMs: 5000, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    expect(result.statuses).toEqual({ "201 bought": STOCK, "409 sold_out": BUYERS - STOCK });
    expectHonestSale(await getSaleStats(), result.bought);
  });
});

// With no work the lock passes along each instance's line as soon as a write is on the wire: the
// next buyer's read must still see that write, or two buyers would sell the same unit.
describe.each(["token-lua", "redlock"] as const)("%s with no work (hand-off on the write's heels)", (strategy) => {
  it(`sells exactly ${STOCK} to ${BUYERS} concurrent buyers through nginx`, async () => {
    await prepareSale({ strategy, workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    expect(result.statuses).toEqual({ "201 bought": STOCK, "409 sold_out": BUYERS - STOCK });
    expectHonestSale(await getSaleStats(), result.bought);
  });
});

describe.each(LAB_VARIANTS)("%s (lab variant, no fault injected)", (strategy) => {
  it(`sells exactly ${STOCK} to ${BUYERS} concurrent buyers through nginx`, async () => {
    await prepareSale({ strategy, workMs: WORK_MS, lockTtlMs: 5000, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    expect(result.statuses).toEqual({ "201 bought": STOCK, "409 sold_out": BUYERS - STOCK });
    expectHonestSale(await getSaleStats(), result.bought);
  });
});

describe("pg-nowait (lab variant)", () => {
  it("never oversells, and answers busy at once instead of queueing", async () => {
    await prepareSale({ strategy: "pg-nowait", workMs: WORK_MS, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    const stats = await getSaleStats();
    expect(result.other + result.unavailable).toBe(0);
    expect(result.busy).toBeGreaterThan(0);
    expect(stats.orders).toBe(result.bought);
    expect(stats.oversell).toBe(0);
    expect(stats.lostStock).toBe(0);
    expect(stats.orders + stats.remaining).toBe(STOCK);
    expect(stats.peakHolders).toBe(1);
  });
});

describe("none (unsafe on purpose)", () => {
  it("oversells: more orders than units", async () => {
    await prepareSale({ strategy: "none", workMs: WORK_MS }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    const stats = await getSaleStats();
    expect(stats.orders).toBe(result.bought);
    expect(stats.orders).toBeGreaterThan(STOCK);
    expect(stats.oversell).toBe(stats.orders - STOCK);
    expect(stats.peakHolders).toBeGreaterThan(1);
  });
});

describe("local (in-process mutex)", () => {
  it("is safe against one instance", async () => {
    await prepareSale({ strategy: "local", workMs: WORK_MS, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(instanceUrl(0), BUYERS);
    expectHonestSale(await getSaleStats(), result.bought);
  });

  it("oversells through nginx with two instances", async () => {
    await prepareSale({ strategy: "local", workMs: WORK_MS, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    const stats = await getSaleStats();
    expect(stats.orders).toBe(result.bought);
    expect(stats.oversell).toBeGreaterThan(0);
    expect(stats.peakHolders).toBe(2);
  });
});

describe("setnx (SETNX + EXPIRE, DEL to unlock)", () => {
  it("is safe while the work fits in the TTL", async () => {
    await prepareSale({ strategy: "setnx", workMs: WORK_MS, lockTtlMs: 5000, waitTimeoutMs: 30_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    expectHonestSale(await getSaleStats(), result.bought);
  });

  it("oversells when the work outlasts the TTL: its DEL removes another buyer's lock", async () => {
    await prepareSale({ strategy: "setnx", workMs: 120, lockTtlMs: 40, waitTimeoutMs: 60_000 }, STOCK);
    const result = await blast(PUBLIC_URL, BUYERS);
    const stats = await getSaleStats();
    expect(stats.orders).toBe(result.bought);
    expect(stats.oversell).toBeGreaterThan(0);
    expect(stats.peakHolders).toBeGreaterThan(1);
  });
});

it("covers every strategy in the registry", () => {
  const covered = new Set<StrategyName>([...SAFE, ...LAB_VARIANTS, "pg-nowait", "none", "local", "setnx"]);
  expect([...covered].sort()).toEqual([...STRATEGY_NAMES].sort());
});
