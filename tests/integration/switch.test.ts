/**
 * Switching strategy or knobs while buyers buy: the switch drains the holders inside, and a holder
 * of the old lock can neither enter nor write beside one of the new. Counted per unit, nothing is
 * sold twice or lost however often the strategy changes under load.
 */
import { afterAll, expect, it } from "vitest";
import { resetConfig, updateConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { HONEST, honest, settledSale } from "../support/accounting";
import { PUBLIC_URL, blast, getSaleStats, prepareSale } from "../support/stack";

afterAll(() => resetConfig());

it("switching between token-lua, redlock and pg-for-update under load makes no second holder", async () => {
  const stock = 300;
  await prepareSale({ strategy: "token-lua", workMs: 3, lockTtlMs: 5000, waitTimeoutMs: 20_000 }, stock);
  const buying = Promise.all([blast(PUBLIC_URL, 150), blast(PUBLIC_URL, 150)]);
  // The switches start once units are being sold: 300 requests arriving at once keep both
  // instances busy for a while before the first reaches the lock, and a switch drains (refuses)
  // whoever arrives meanwhile — switching before any sale would test nothing.
  const deadline = Date.now() + 20_000;
  while ((await getStock()) === stock && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  const order = ["redlock", "pg-for-update", "token-lua", "redlock", "token-lua", "pg-for-update"] as const;
  for (const strategy of order) {
    await new Promise((resolve) => setTimeout(resolve, 60));
    await updateConfig({ strategy, lockTtlMs: 4000 + order.indexOf(strategy) });
  }
  const results = await buying;
  const bought = results.reduce((sum, result) => sum + result.bought, 0);
  const checked = await settledSale();
  expect(honest(checked)).toEqual(HONEST);
  expect(bought).toBeGreaterThan(0);
  expect(checked.orders).toBe(bought);
  expect(checked.orders + checked.remaining).toBe(stock);
  expect((await getSaleStats()).peakHolders).toBe(1);
  // Buyers caught by a switch were told to retry (423 busy), never left with a half-done sale.
  expect(results.every((result) => result.other === 0 && result.unavailable === 0)).toBe(true);
});
