/**
 * Fencing tokens: across a run where a holder freezes past its TTL, the store accepts stock
 * writes only in increasing token order and refuses the stale one; nothing is oversold.
 */
import { afterAll, expect, it } from "vitest";
import { clearFaults, setFault } from "@/lib/lab/faults";
import { getRedis } from "@/lib/redis";
import { resetConfig } from "@/lib/sale/config";
import { saleCounterKeys } from "@/lib/sale/keys";
import { PUBLIC_URL, blast, getSaleStats, prepareSale } from "../support/stack";

afterAll(async () => {
  await clearFaults();
  await resetConfig();
});

it("every accepted stock write carries a higher token than the one before it", async () => {
  await prepareSale({ strategy: "token-fencing", lockTtlMs: 200, workMs: 10, waitTimeoutMs: 30_000 }, 10);
  await setFault("pause-before-write", 800, 2);
  const result = await blast(PUBLIC_URL, 40);
  const stats = await getSaleStats();

  const tokens = (await getRedis().lrange(saleCounterKeys(stats.id).fenceLog, 0, -1)).map(Number);
  expect(tokens.length).toBe(stats.orders);
  for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]!);
  expect(stats.staleRefused).toBeGreaterThan(0);
  expect(result.statuses["503 lock_lost"]).toBeGreaterThan(0);
  expect(stats.oversell).toBe(0);
  expect(stats.lostUnits).toBe(0);
  expect(stats.doubleSold).toBe(0);
  expect(stats.orders + stats.remaining).toBe(10);
});
