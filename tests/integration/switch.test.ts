/**
 * Switching strategy or knobs while buyers buy: the switch drains the holders inside, and a holder
 * of the old lock can neither enter nor write beside one of the new. Counted per unit, nothing is
 * sold twice or lost however often the strategy changes under load.
 */
import { afterAll, expect, it } from "vitest";
import { resetConfig, updateConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { HONEST, honest, settledSale } from "../support/accounting";
import { PUBLIC_URL, getSaleStats, prepareSale } from "../support/stack";

/** `buyers` concurrent purchases; counts them by outcome, and the 423s that a switch gave (it says so). */
async function buyThroughSwitches(buyers: number, prefix: string) {
  const answers = await Promise.all(Array.from({ length: buyers }, async (_, index) => {
    const response = await fetch(`${PUBLIC_URL}/api/buy`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ buyer: `${prefix}-${index}` }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await response.json()) as { code?: string; status?: string; message?: string };
    return { status: response.status, code: body.code ?? body.status ?? "unknown", message: body.message ?? "" };
  }));
  const count = (test: (answer: (typeof answers)[number]) => boolean) => answers.filter(test).length;
  return {
    bought: count((a) => a.status === 201),
    caughtBySwitch: count((a) => a.status === 423 && /switching strategy or restarting/.test(a.message)),
    unavailable: count((a) => a.code === "unavailable"),
    other: count((a) => ![201, 409, 423].includes(a.status)),
  };
}

afterAll(() => resetConfig());

it("switching between token-lua, redlock and pg-for-update under load makes no second holder", async () => {
  const stock = 300;
  await prepareSale({ strategy: "token-lua", workMs: 3, lockTtlMs: 5000, waitTimeoutMs: 20_000 }, stock);
  const buying = Promise.all([buyThroughSwitches(150, "a"), buyThroughSwitches(150, "b")]);
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
  // And the switches really happened under buyers: some were turned away by a switch draining.
  expect(results.reduce((sum, result) => sum + result.caughtBySwitch, 0)).toBeGreaterThan(0);
});
